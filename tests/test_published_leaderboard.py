"""The published leaderboard (`leaderboard/`): real runs of four models, regenerable byte for byte."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from copy_tasks.report.build import build_leaderboard
from copy_tasks.suite import OFFLINE_FAMILIES

PUBLISHED = Path(__file__).resolve().parents[1] / "leaderboard"
MODELS = {"gemma-3-270m": "transformer", "smollm2-135m": "transformer",
          "ngram_copier": "reference model", "bounded_state": "reference model"}


def test_the_csv_regenerates_byte_identically_from_the_raw_results(tmp_path):
    report = build_leaderboard([PUBLISHED / "results"], tmp_path)
    assert report.problems == []
    assert (tmp_path / "leaderboard.csv").read_bytes() == (PUBLISHED / "leaderboard.csv").read_bytes()


def test_every_model_ran_every_offline_family_in_both_variants():
    with (PUBLISHED / "leaderboard.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for model, architecture in MODELS.items():
        mine = [row for row in rows if row["model"] == model]
        assert {row["architecture"] for row in mine} == {architecture}
        assert {(row["family"], row["variant"]) for row in mine} == {
            (family.name, variant) for family in OFFLINE_FAMILIES for variant in ("generation", "teacher_forced")
        }
        assert all(int(row["n"]) >= 10 for row in mine)
        assert {row["flags"] for row in mine} == {""}


def test_published_files_name_no_folder_of_the_machine_that_made_them():
    machine_path = re.compile(r"(?<![\w.])/(root|home|tmp|work|Users)/")
    for path in PUBLISHED.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".csv", ".md"):
            assert not machine_path.search(path.read_text(encoding="utf-8")), path
