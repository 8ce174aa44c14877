"""The names a leaderboard shows (`copy_tasks.report.display_names`): a folder's own name, never a path;
`--name PATTERN=LABEL`; one name per model that later builds keep; a schema-1 CSV upgraded."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from leaderboard_fixtures import GOOD, read_rows, write_results

from copy_tasks.probes.family import GENERATION
from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.build import main as leaderboard_main
from copy_tasks.report.display_names import NameRule, default_name, is_local_path, name_rule, names_of_models
from copy_tasks.report.plots import family_figure, model_styles
from copy_tasks.report.schema import SCHEMA_VERSION, UPGRADABLE_SCHEMAS
from copy_tasks.report.series import latest_runs
from copy_tasks.report.table import LeaderboardFileError

matplotlib.use("Agg")

CACHE_PATH = "/home/ada/.cache/copy_tasks/models/gemma-3-270m"


@pytest.mark.parametrize(("model", "shown"), [
    (CACHE_PATH, "gemma-3-270m"),
    ("~/models/smollm2-135m/", "smollm2-135m"),
    ("./out/trained-copy-lstm-s0", "trained-copy-lstm-s0"),
    ("runs/a/b", "b"),
    ("C:\\Users\\me\\models\\phi-2", "phi-2"),
    ("/hf/hub/models--google--gemma-3-270m/snapshots/9b0cfec892e2bc2afd938c98eabe4e4a7b1e0ca1", "google/gemma-3-270m"),
    ("google/gemma-3-270m", "google/gemma-3-270m"),
    ("gpt2", "gpt2"),
    ("ngram_copier(n=5)", "ngram_copier(n=5)"),
    ("https://example.org/a/b", "https://example.org/a/b"),
    ("$\\frac{a$", "$\\frac{a$"),
])
def test_a_local_path_is_shown_by_its_last_folder_and_anything_else_as_it_is(model, shown):
    assert default_name(model) == shown
    assert is_local_path(model) == (shown != model)


@pytest.mark.parametrize(("text", "says"), [
    ("gemma", "give PATTERN=LABEL"),
    ("=Gemma", "both the pattern and the label must be non-empty"),
    ("gemma= ", "both the pattern and the label must be non-empty"),
    ("gemma=a\nb", "may not hold a line break"),
])
def test_a_bad_name_rule_is_refused_naming_it(text, says):
    with pytest.raises(ValueError, match=says) as error:
        name_rule(text)
    assert repr(text) in str(error.value)


def test_a_rule_splits_at_the_first_equals_sign_outside_parentheses_and_matches_the_id_or_the_folder_name():
    rule = name_rule("gemma-3-*=Gemma 3 (a=b)")
    assert rule == NameRule("gemma-3-*", "Gemma 3 (a=b)")
    # Left open by issue 44: a reference model's id holds its args, and the rule was split inside them.
    reference = name_rule("bounded_state(bits=64)=Bounded state (64 bits)")
    assert reference == NameRule("bounded_state(bits=64)", "Bounded state (64 bits)")
    assert reference.matches("bounded_state(bits=64)") and not reference.matches("bounded_state(bits=640)")
    assert rule.matches(CACHE_PATH) and rule.matches("gemma-3-270m")
    assert not rule.matches("google/gemma-3-270m") and not rule.matches("Gemma-3-270m")  # case matters
    assert name_rule("*/gemma-3-270m=G").matches("google/gemma-3-270m")


def test_the_first_rule_wins_then_the_recorded_name_then_the_default():
    rules = [name_rule("smol*=SmolLM2"), name_rule("*=everything else")]
    assert names_of_models({"/m/smollm2", "gpt2"}, {}, rules) == {"/m/smollm2": "SmolLM2", "gpt2": "everything else"}
    # two names recorded for one model (a hand edit): the more common, ties by name
    recorded = {"gpt2": ["B", "A", "B"], "/m/x": ["Z", "Y"]}
    assert names_of_models({"gpt2", "/m/x", "/m/new"}, recorded, []) == {"gpt2": "B", "/m/x": "Y", "/m/new": "new"}


def shown_names(out: Path) -> set[str]:
    return {row["name"] for row in read_rows(out)}


def test_a_run_from_a_cache_path_is_named_by_its_folder_everywhere(tmp_path):
    write_results(tmp_path / "in", CACHE_PATH, GOOD)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    rows = read_rows(tmp_path / "out")
    assert {row["model"] for row in rows} == {CACHE_PATH} and shown_names(tmp_path / "out") == {"gemma-3-270m"}
    for name in ("summary.md", "index.html"):
        text = (tmp_path / "out" / name).read_text()
        assert "gemma-3-270m" in text and "/home/ada" not in text, name


def test_a_display_name_shows_in_the_summary_page_and_plots_and_holds_in_later_builds(tmp_path):
    write_results(tmp_path / "in", CACHE_PATH, GOOD)
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out",
                               names=[name_rule("gemma-3-270m=Gemma 3 270M"), name_rule("phi*=Phi")])
    assert "--name 'phi*=Phi' matches no model in the leaderboard" in report.notes
    assert shown_names(tmp_path / "out") == {"Gemma 3 270M"}
    for name in ("summary.md", "index.html"):
        assert "Gemma 3 270M" in (tmp_path / "out" / name).read_text(), name
    shown, _ = latest_runs(read_rows(tmp_path / "out"))
    figure = family_figure(shown, "phonebook_copy", GENERATION, "exact_match", "exact match", model_styles(shown))
    assert [text.get_text() for text in figure.axes[0].get_legend().get_texts()] == ["Gemma 3 270M"]
    # a later run of the model, built without --name: every row keeps the display name
    write_results(tmp_path / "later", CACHE_PATH, GOOD, date="2026-11-09T10:00:00")
    build_leaderboard([tmp_path / "later"], tmp_path / "out")
    rows = read_rows(tmp_path / "out")
    assert len({row["run"] for row in rows}) == 2 and shown_names(tmp_path / "out") == {"Gemma 3 270M"}
    # and a new rule renames every row of the model, earlier runs too, without a merge conflict
    build_leaderboard([tmp_path / "later"], tmp_path / "out", names=[name_rule("gemma*=G3")])
    assert shown_names(tmp_path / "out") == {"G3"} and len(read_rows(tmp_path / "out")) == len(rows)


def test_two_models_that_would_share_a_name_are_refused_in_one_line_naming_them(tmp_path):
    write_results(tmp_path / "in", "/a/models/gemma", GOOD)
    write_results(tmp_path / "in", "/b/other/gemma", GOOD, date="2026-11-02T10:00:00")
    with pytest.raises(LeaderboardFileError,
                       match="models /a/models/gemma, /b/other/gemma would all be shown as 'gemma'"):
        build_leaderboard([tmp_path / "in"], tmp_path / "out")
    build_leaderboard([tmp_path / "in"], tmp_path / "out", names=[name_rule("/b/*=other gemma")])
    assert shown_names(tmp_path / "out") == {"gemma", "other gemma"}


@pytest.mark.parametrize("backends", [("ngram_copier", "bounded_state"), ("hf", "hf")])
def test_a_label_over_several_models_is_refused_and_nothing_written(tmp_path, capsys, backends):
    for model, backend, value, day in (("a", backends[0], 0.0, "01"), ("b", backends[1], 1.0, "02")):
        write_results(tmp_path / "in", model, {"mqar_8": {"exact_match": value}}, backend=backend,
                      date=f"2026-11-{day}T10:00:00")
    # before: one row `<8 / 0.50` mixing both (or a ZeroDivisionError where each ran one length)
    with pytest.raises(SystemExit) as stopped:
        leaderboard_main([str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--name", "*=Same"])
    assert stopped.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--name '*=Same' gives models " in line and "the one name 'Same'" in line
    assert not (tmp_path / "out" / "leaderboard.csv").exists()


def test_a_schema_1_csv_is_upgraded_with_every_row_kept(tmp_path):
    write_results(tmp_path / "in", CACHE_PATH, GOOD)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    path = tmp_path / "out" / "leaderboard.csv"
    current = read_rows(tmp_path / "out")
    with path.open("w", newline="") as handle:  # as copy-tasks 0.1.0 of schema 1 wrote it
        writer = csv.DictWriter(handle, fieldnames=["schema_version", *UPGRADABLE_SCHEMAS["1"]],
                                extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, "schema_version": "1"} for row in current)
    write_results(tmp_path / "new", "smollm2", GOOD, date="2026-11-05T10:00:00")
    build_leaderboard([tmp_path / "new"], tmp_path / "out")
    rows = read_rows(tmp_path / "out")
    assert {row["schema_version"] for row in rows} == {SCHEMA_VERSION}
    assert {(row["model"], row["name"]) for row in rows} == {(CACHE_PATH, "gemma-3-270m"), ("smollm2", "smollm2")}
    kept = [{key: value for key, value in row.items() if key not in ("schema_version", "name")}
            for row in rows if row["model"] == CACHE_PATH]
    assert kept == [{key: value for key, value in row.items() if key not in ("schema_version", "name")}
                    for row in current]


def test_a_bad_name_stops_the_command_before_anything_is_written(tmp_path):
    write_results(tmp_path / "in", "gemma", GOOD)
    done = subprocess.run([sys.executable, "-m", "copy_tasks", "leaderboard", str(tmp_path / "in"),
                           "--out", str(tmp_path / "out"), "--name", "Gemma 3"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--name 'Gemma 3': give PATTERN=LABEL" in done.stderr
    assert not (tmp_path / "out").exists()
