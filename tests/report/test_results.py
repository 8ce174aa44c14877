"""The one reader of lm-eval results and samples files (`copy_tasks.report.results`): what it reads,
what it names and passes over."""

from __future__ import annotations

import csv
import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from leaderboard_fixtures import GOOD, JSON, PATHS, good_file, mutated, read_rows, write_results

from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.rows import rows_from_file

SCORES = {"phonebook_copy_20": {"exact_match": 1.0, "exact_match_stderr": 0.0, "overflow": 0.0},
          "random_copy_10": {"exact_match": 0.5, "exact_match_stderr": 0.25}}


def read_csv_rows(path: Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_same_results_under_three_names_are_read_once_with_one_note(tmp_path):
    first = write_results(tmp_path / "in", "gemma", SCORES)
    for name in ("copy_2026-11-01T10-00-00.000000.json", "again_2026-11-01T10-00-00.000000.json"):
        (tmp_path / "in" / name).write_bytes(first.read_bytes())
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3
    assert [note for note in report.notes if "same results" in note] == [
        f"the same results are in again_2026-11-01T10-00-00.000000.json and copy_2026-11-01T10-00-00.000000.json, "
        f"{first.name}: read once"]
    assert not [note for note in report.notes if "runs of" in note]


def test_a_fifo_named_like_results_or_text_is_passed_over_or_refused(tmp_path):
    write_results(tmp_path / "in", "gemma", SCORES)
    os.mkfifo(tmp_path / "in" / "results_x.json")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")  # would block forever on the FIFO
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3
    from copy_tasks.probes.text_sources import TextSourceError, load_documents

    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "b.txt").write_text("some words here")
    os.mkfifo(tmp_path / "text" / "a.txt")
    with pytest.raises(TextSourceError, match="a.txt is not a regular file"):
        load_documents(str(tmp_path / "text"))
    with pytest.raises(TextSourceError, match="/dev/zero is not a regular file or folder"):
        load_documents("/dev/zero")


def test_a_results_file_with_a_5000_digit_integer_is_named_and_the_others_merged(tmp_path):
    good = write_results(tmp_path / "in", "gemma", SCORES)
    data = json.loads(good.read_text())
    bad = tmp_path / "in" / "results_2026-11-02T10-00-00.000000.json"
    bad.write_text(json.dumps(data).replace('"n-samples": {', '"huge": ' + "9" * 5000 + ', "n-samples": {', 1))
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [problem.path for problem in report.skipped_files] == [str(bad)]
    assert "holds a value this reader refuses (Exceeds the limit (4300 digits)" in report.skipped_files[0].message
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3


def test_a_bad_samples_file_is_named_and_its_results_still_read(tmp_path):
    results = write_results(tmp_path / "in", "gemma", {"random_copy_10": {"exact_match": 0.5}})
    samples = results.with_name(f"samples_random_copy_10_{results.stem.removeprefix('results_')}.jsonl")
    samples.write_text('{"doc_id": ' + "9" * 5000 + "}\n")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [problem.path for problem in report.problems] == [str(samples)]
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), value=JSON)
@example(path=("date",), value=float("nan"))  # a NaN date
@example(path=("date",), value=1e300)  # a date past the calendar
@example(path=("config",), value=[1, 2])  # config a list
@example(path=("configs", "phonebook_copy_20"), value="x")  # a task config a string
@example(path=("n-samples",), value=5)  # n-samples an int
@example(path=("results", "phonebook_copy_20"), value=None)  # a task's results null
@example(path=("results", "phonebook_copy_20", results_key("exact_match")), value=10**400)  # a value of 10**400
def test_the_reader_never_raises_on_a_mutated_results_file(tmp_path_factory, path, value):
    folder = tmp_path_factory.mktemp("mutated")
    file = write_results(folder, "model", GOOD)
    file.write_text(json.dumps(mutated(json.loads(file.read_text()), path, value)))
    rows, problems = rows_from_file(file)
    for row in rows:  # what is read is sound: finite numbers, stderr >= 0, lengths > 0
        assert row.value is None or math.isfinite(row.value)
        assert row.stderr is None or (math.isfinite(row.stderr) and row.stderr >= 0)
        assert row.length > 0


@pytest.mark.parametrize("where", ["results", "samples"])
def test_json_nested_5000_deep_is_named_and_skipped(tmp_path, where):
    file = write_results(tmp_path / "in", "deep", GOOD)
    nested = "[" * 5000 + "]" * 5000
    if where == "results":
        file.write_text(nested)
    else:
        (file.parent / f"samples_phonebook_copy_20_{file.stem.removeprefix('results_')}.jsonl").write_text(nested)
    good_file(tmp_path / "in")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert "good-model" in {row["model"] for row in read_rows(tmp_path / "out")}
    assert any("nested too deeply" in problem.message for problem in report.problems)


def test_samples_give_n_and_a_mismatch_is_reported(tmp_path):
    path = write_results(tmp_path / "in", "gemma", {"random_copy_10": {"exact_match": 0.5}}, n=4)
    stamp = path.stem.removeprefix("results_")
    samples = path.with_name(f"samples_random_copy_10_{stamp}.jsonl")
    samples.write_text("".join(json.dumps({"doc_id": i, "exact_match": i % 2}) + "\n" for i in range(3)))
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [row["n"] for row in read_rows(tmp_path / "out")] == ["3"]
    assert any("random_copy_10: 3 logged samples but n=4" in str(problem) for problem in report.problems)


def test_a_truncated_samples_file_is_named_and_n_comes_from_the_results(tmp_path):
    path = write_results(tmp_path / "in", "gemma", {"random_copy_10": {"exact_match": 0.5}}, n=4)
    samples = path.with_name(f"samples_random_copy_10_{path.stem.removeprefix('results_')}.jsonl")
    samples.write_text('{"doc_id": 0, "exact_match": 1}\n{"doc_id": 1, "exa')
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    (problem,) = report.problems
    assert str(problem).startswith(f"{samples}: is not valid JSON lines (Unterminated string")
    assert str(problem).endswith("; n taken from the results file") and not problem.skipped
    assert [row["n"] for row in read_rows(tmp_path / "out")] == ["4"]
