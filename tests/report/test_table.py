"""The leaderboard's CSV (`copy_tasks.report.table`): merging runs into it, refusing what would lose
or corrupt a row, writing values safely."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import run_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard, main
from copy_tasks.report.build import main as leaderboard_main
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.schema import SCHEMA_VERSION
from copy_tasks.report.table import LeaderboardFileError, MergeConflict

SCORES = {"phonebook_copy_20": {"exact_match": 1.0, "exact_match_stderr": 0.0, "overflow": 0.0},
          "random_copy_10": {"exact_match": 0.5, "exact_match_stderr": 0.25}}


def read_csv_rows(path: Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def write_csv_rows(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def board(tmp_path) -> Path:
    """A leaderboard of one run (3 rows), and its results folder at tmp_path/in."""
    write_results(tmp_path / "in", "gemma", SCORES)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    return tmp_path / "out"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(["duplicate", "revalue", "blank_key", "drop", "keep"]),
                                st.integers(0, 2), st.sampled_from(["run", "task", "metric", "value"])),
                      min_size=1, max_size=3))
def test_a_merge_keeps_every_row_or_stops_with_the_csv_as_it_was(board, edits):
    original = read_csv_rows(board / "leaderboard.csv")
    rows = [dict(row) for row in original]
    for edit, position, column in edits:
        index = position % len(rows)
        if edit == "duplicate":
            rows.append(dict(rows[index], value="0.5"))
        elif edit == "revalue":
            rows[index]["value"] = "0.25"
        elif edit == "drop" and len(rows) > 1:
            rows.pop(index)  # a row the new results will add back
        elif edit == "keep":
            pass
        elif edit == "blank_key" and column != "value":
            rows[index][column] = ""
    write_csv_rows(board / "leaderboard.csv", rows)
    before = (board / "leaderboard.csv").read_bytes()
    try:
        build_leaderboard([board.parent / "in"], board)
    except LeaderboardFileError as error:
        assert (board / "leaderboard.csv").read_bytes() == before  # stopped: the CSV as it was
        assert "line" in str(error) or "new rows" in str(error)
    else:
        after = read_csv_rows(board / "leaderboard.csv")
        assert all(row in after for row in rows)  # every row kept, unchanged
        assert len(after) == len(original)
    finally:
        write_csv_rows(board / "leaderboard.csv", original)


def test_a_duplicated_row_and_an_emptied_key_are_named_and_the_csv_kept(board, capsys):
    rows = read_csv_rows(board / "leaderboard.csv")
    write_csv_rows(board / "leaderboard.csv", [rows[0], dict(rows[0], value="0.5"), *rows[1:]])
    before = (board / "leaderboard.csv").read_bytes()
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(board.parent / "in"), "--out", str(board)])
    assert stop.value.code == 2 and (board / "leaderboard.csv").read_bytes() == before
    assert "lines 2 and 3: the same run / task / metric" in capsys.readouterr().err
    write_csv_rows(board / "leaderboard.csv", [dict(row, metric="") for row in rows])
    with pytest.raises(LeaderboardFileError, match="line 2: empty metric"):
        build_leaderboard([board.parent / "in"], board)


def test_a_new_value_for_an_existing_row_is_a_named_conflict_unless_replace(board):
    rows = read_csv_rows(board / "leaderboard.csv")
    write_csv_rows(board / "leaderboard.csv", [dict(rows[0], value="0.5"), *rows[1:]])
    with pytest.raises(MergeConflict, match=r"1 new rows have the run, task and metric of a row already in the CSV, "
                                            r"with other values \(gemma@.*: value 0.5 in the CSV, 1.0 in results_"):
        build_leaderboard([board.parent / "in"], board)
    build_leaderboard([board.parent / "in"], board, replace=True)
    assert {row["value"] for row in read_csv_rows(board / "leaderboard.csv")} == {value["value"] for value in rows}


def test_a_conflict_in_the_state_size_alone_names_the_column_and_both_values(tmp_path):
    for folder, bits in (("a", 64), ("b", 128)):  # one run, recorded again with another state size
        write_results(tmp_path / folder, "m", {"mqar_8": {"exact_match": 1.0}},
                      task_metadata={"mqar_8": {"copy_tasks_state_bits": bits}})
    build_leaderboard([tmp_path / "a"], tmp_path / "out")
    # before: "exact_match: 1.0 in the CSV, 1.0 in results_...", the column never named
    with pytest.raises(MergeConflict, match=r"/ mqar_8 / exact_match: state_bits 64 in the CSV, 128 in results_"):
        build_leaderboard([tmp_path / "b"], tmp_path / "out")


def test_a_csv_saved_with_a_byte_order_mark_is_named_as_such(board):
    path = board / "leaderboard.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    with pytest.raises(LeaderboardFileError, match="starts with a byte-order mark"):
        build_leaderboard([board.parent / "in"], board)


def test_a_flag_of_any_length_is_cut_in_the_csv(tmp_path):
    write_results(tmp_path / "in", "gemma", SCORES, config={"model": "hf", "model_args": {}, "limit": "9" * 100_000})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    flags = {row["flags"] for row in read_csv_rows(tmp_path / "out" / "leaderboard.csv")}
    assert flags == {"limit=" + "9" * 90 + "... (100006 characters)"}


GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}


def good_file(folder: Path) -> Path:
    return write_results(folder, "good-model", GOOD, date="2026-11-02T10:00:00")


@pytest.mark.parametrize(("damage", "message"), [
    (lambda text: text[: len(text) // 2].rsplit(",", 3)[0], "fewer fields than columns"),
    (lambda text: text.replace("\n", ",extra\n", 2).replace(",extra\n", "\n", 1), "more fields than columns"),
    (lambda text: text + "1,café," + "\n", None),
])
def test_a_damaged_csv_is_named_and_left_untouched(tmp_path, damage, message):
    good_file(tmp_path / "in")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    csv_path = tmp_path / "out" / "leaderboard.csv"
    if message is None:  # latin-1
        csv_path.write_bytes(damage(csv_path.read_text()).encode("latin-1"))
        message = "not UTF-8 text"
    else:
        csv_path.write_text(damage(csv_path.read_text()))
    before = csv_path.read_bytes()
    result = run_command(["copy-tasks", "leaderboard", str(tmp_path / "in"), "--out", str(tmp_path / "out")],
                         cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert csv_path.read_bytes() == before


GEMMA_SCORES = {
    "phonebook_copy_20": {"exact_match": 0.9, "exact_match_stderr": 0.1},
    "phonebook_copy_tf_50": {"exact_match": 0.5, "exact_match_stderr": 0.25, "bits_per_char": 0.125,
                             "bits_per_char_stderr": 0.0625},
}


def read_rows(out):
    with (out / "leaderboard.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def key_columns(rows, columns=("model", "task", "length", "metric", "value", "stderr")):
    return [tuple(row[column] for column in columns) for row in rows]


def test_a_rerun_with_one_more_file_adds_its_rows_and_changes_no_other(tmp_path):
    write_results(tmp_path / "a", "gemma", GEMMA_SCORES, date="2026-11-01T10:00:00")
    write_results(tmp_path / "a", "smollm", GEMMA_SCORES, date="2026-11-02T10:00:00")
    build_leaderboard([tmp_path / "a"], tmp_path / "out")
    before = (tmp_path / "out" / "leaderboard.csv").read_text().splitlines()

    write_results(tmp_path / "b", "pythia", {"random_copy_10": {"exact_match": 0.25}}, date="2026-11-03T10:00:00")
    build_leaderboard([tmp_path / "b"], tmp_path / "out")
    after = (tmp_path / "out" / "leaderboard.csv").read_text().splitlines()

    assert set(before) <= set(after)
    added = [line for line in after if line not in before]
    assert len(added) == 1 and ",pythia," in added[0] and ",random_copy_10," in added[0]

    build_leaderboard([tmp_path / "a", tmp_path / "b"], tmp_path / "out")  # the same files again
    assert (tmp_path / "out" / "leaderboard.csv").read_text().splitlines() == after


def test_the_csv_is_the_same_bytes_whatever_the_input_order(tmp_path):
    first = write_results(tmp_path / "in", "gemma", GEMMA_SCORES, date="2026-11-01T10:00:00")
    second = write_results(tmp_path / "in", "smollm", GEMMA_SCORES, date="2026-11-02T10:00:00")
    build_leaderboard([first, second], tmp_path / "one")
    build_leaderboard([second, first], tmp_path / "two")
    build_leaderboard([tmp_path / "in"], tmp_path / "three")
    texts = {(tmp_path / name / "leaderboard.csv").read_bytes() for name in ("one", "two", "three")}
    assert len(texts) == 1


def test_two_runs_of_one_model_stay_in_the_csv_and_the_summary_shows_the_latest(tmp_path):
    task = {"phonebook_copy_20": {"exact_match": 0.2}}
    write_results(tmp_path / "in", "gemma", task, date="2026-11-01T10:00:00")
    write_results(tmp_path / "in", "gemma", {"phonebook_copy_20": {"exact_match": 0.8}}, date="2026-11-05T10:00:00")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [row["value"] for row in read_rows(tmp_path / "out")] == ["0.2", "0.8"]
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| gemma | transformer | - | 20 / 0.80 (20) |" in summary
    note = ("gemma (hf): 2 runs of phonebook_copy_20 (in results_2026-11-01T10-00-00.000000.json, "
            "results_2026-11-05T10-00-00.000000.json); all stay in the CSV, the summary and plots use the "
            "latest (gemma@2026-11-05T10:00:00Z)")
    assert markdown_text(note) in summary and note in report.notes


def test_replace_drops_earlier_runs_of_the_same_model_and_task_only(tmp_path):
    write_results(tmp_path / "old", "gemma", GEMMA_SCORES, date="2026-11-01T10:00:00")
    build_leaderboard([tmp_path / "old"], tmp_path / "out")
    write_results(tmp_path / "new", "gemma", {"phonebook_copy_20": {"exact_match": 1.0}}, date="2026-11-09T10:00:00")
    report = build_leaderboard([tmp_path / "new"], tmp_path / "out", replace=True)
    assert key_columns(read_rows(tmp_path / "out"), ("run", "task", "metric", "value")) == [
        ("gemma@2026-11-09T10:00:00Z", "phonebook_copy_20", "exact_match", "1.0"),
        ("gemma@2026-11-01T10:00:00Z", "phonebook_copy_tf_50", "bits_per_char", "0.125"),
        ("gemma@2026-11-01T10:00:00Z", "phonebook_copy_tf_50", "exact_match", "0.5"),
    ]
    assert "--replace: 1 rows of earlier runs replaced" in report.notes


def test_model_names_that_break_csv_or_spreadsheets_are_written_safely(tmp_path, capsys):
    names = ['org/model,with "commas"', "=HYPERLINK(\"http://x\")", "two\nlines", "-negative"]
    for day, name in enumerate(names, start=1):
        write_results(tmp_path / "in", name, {"random_copy_10": {"exact_match": 0.5}},
                      date=f"2026-11-0{day}T10:00:00")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert any("'two\\nlines' has line breaks; written as \\r and \\n" in str(p) for p in report.problems)
    models = sorted(row["model"] for row in read_rows(tmp_path / "out"))
    assert models == ["'-negative", "'=HYPERLINK(\"http://x\")", 'org/model,with "commas"', "two\\nlines"]
    assert all(line.count("\n") == 0 for line in (tmp_path / "out" / "leaderboard.csv").read_text().splitlines())


def test_an_existing_csv_of_another_schema_is_left_untouched(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "leaderboard.csv").write_text("model,score\nx,1\n")
    write_results(tmp_path / "in", "gemma", GEMMA_SCORES)
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "in"), "--out", str(out)])
    assert exit_info.value.code == 2
    assert f"columns are not those of leaderboard schema {SCHEMA_VERSION}" in capsys.readouterr().err
    assert (out / "leaderboard.csv").read_text() == "model,score\nx,1\n"
