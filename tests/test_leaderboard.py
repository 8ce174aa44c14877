"""The leaderboard builder: exact rows from fixture results, merging, atomic writes, bad input."""

from __future__ import annotations

import csv
import json
import os

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.common import files
from copy_tasks.report.build import build_leaderboard, main
from copy_tasks.report.summary import area_under_curve, effective_length, markdown_text
from copy_tasks.report.table import LeaderboardFileError

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


def test_rows_of_a_results_file_are_exactly_its_metrics(tmp_path):
    write_results(tmp_path / "in", "gemma", GEMMA_SCORES, date="2026-11-01T10:00:00")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert report.problems == []
    rows = read_rows(tmp_path / "out")
    assert key_columns(rows) == [
        ("gemma", "phonebook_copy_20", "20", "exact_match", "0.9", "0.1"),
        ("gemma", "phonebook_copy_tf_50", "50", "bits_per_char", "0.125", "0.0625"),
        ("gemma", "phonebook_copy_tf_50", "50", "exact_match", "0.5", "0.25"),
    ]
    first = rows[0]
    assert first == {
        "schema_version": "1", "run": "gemma@2026-11-01T10:00:00Z", "model": "gemma",
        "model_revision": "main", "model_source": "", "backend": "hf", "dtype": "torch.float32",
        "parameters": "1000", "architecture": "transformer", "model_type": "gemma3_text",
        "lm_eval_version": "0.4.13", "copy_tasks_version": "0.1.0", "task": "phonebook_copy_20",
        "family": "phonebook_copy", "variant": "generation", "task_version": "1.0",
        "task_hash": "hash-phonebook_copy_20", "docs_sha256": "sha-phonebook_copy_20", "seed": "1234",
        "length": "20", "unit": "entries", "metric": "exact_match", "n": "10", "value": "0.9",
        "stderr": "0.1", "overflow_docs": "0", "date": "2026-11-01T10:00:00Z", "flags": "",
        "source_file": "results_2026-11-01T10-00-00.000000.json",
    }
    assert {row["variant"] for row in rows[1:]} == {"teacher_forced"}


def test_architecture_and_flags_come_from_the_run(tmp_path):
    write_results(tmp_path / "in", "mamba-130m", {"random_copy_10": {"exact_match": 1.0}}, model_type="mamba",
                  config={"model": "hf", "model_args": {}, "limit": 3, "gen_kwargs": {"temperature": 0.7}},
                  chat_template="{{ x }}")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    (row,) = read_rows(tmp_path / "out")
    assert row["architecture"] == "ssm"
    assert row["flags"] == 'limit=3;gen_kwargs={"temperature": 0.7};not_greedy;chat_template'


def test_a_users_max_gen_toks_is_shown_as_the_budgets_really_sent(tmp_path):
    path = write_results(tmp_path / "in", "gemma", {"random_copy_50": {"exact_match": 1.0}},
                         config={"model": "hf", "model_args": {}, "gen_kwargs": "max_gen_toks=64,temperature=0"})
    data = json.loads(path.read_text())
    data["configs"]["random_copy_50"]["metadata"]["copy_tasks_generation_budgets"] = [100]
    path.write_text(json.dumps(data))
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    (row,) = read_rows(tmp_path / "out")
    assert row["flags"] == 'max_gen_toks_sent=100;gen_kwargs={"temperature": "0"}'


def test_predict_only_results_are_left_out_with_a_note(tmp_path):
    write_results(tmp_path / "in", "gemma", {"phonebook_copy_20": {"bypass": 999, "bypass_stderr": "N/A"}})
    write_results(tmp_path / "in", "smollm", {"phonebook_copy_20": {"exact_match": 0.5}}, date="2026-11-02T10:00:00")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [row["model"] for row in read_rows(tmp_path / "out")] == ["smollm"]
    assert [problem.message for problem in report.problems] == [
        "holds predictions only (lm-eval --predict_only: no scores); left out"]
    assert report.skipped_files == []


def test_lengths_that_overflowed_are_left_out_of_the_summary_and_named(tmp_path):
    write_results(tmp_path / "in", "pythia", {
        "phonebook_copy_20": {"exact_match": 1.0, "overflow": 0.0},
        "phonebook_copy_50": {"exact_match": 0.8, "overflow": 0.0},
        "phonebook_copy_100": {"exact_match": 0.0, "overflow": 0.5},  # scores of the docs that fit
        "phonebook_copy_200": {"overflow": 1.0},  # every doc cut: no score at all
    })
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    auc = area_under_curve([(20, 1.0), (50, 0.8)])
    assert f"| pythia | transformer | - | 50 / {auc:.2f} (20-50); overflow at 100, 200 |" in summary


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
    assert "| gemma | transformer | - | 20 / 0.80 (20-20) |" in summary
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


@pytest.mark.parametrize("fails_at", [1, 4])  # the CSV's flush, or one after the CSV and plots were staged
def test_a_full_disk_while_writing_leaves_every_output_as_it_was(tmp_path, monkeypatch, fails_at):
    """Finding 17: on a full disk summary.md was written and index.html not (an OSError traceback)."""
    write_results(tmp_path / "a", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "a"], tmp_path / "out")
    before = {path.relative_to(tmp_path / "out"): path.read_bytes()
              for path in (tmp_path / "out").rglob("*") if path.is_file()}
    calls = []

    def full_disk(_fd):
        calls.append(1)
        if len(calls) >= fails_at:
            raise OSError(28, "No space left on device (injected)")

    write_results(tmp_path / "b", "smollm", GEMMA_SCORES, date="2026-11-07T10:00:00")
    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(LeaderboardFileError, match=r"\(No space left on device \(injected\)\); nothing was changed"):
        build_leaderboard([tmp_path / "a", tmp_path / "b"], tmp_path / "out")
    after = {path.relative_to(tmp_path / "out"): path.read_bytes()
             for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert after == before  # the CSV, every plot, summary.md and index.html: all as they were, no temporary


def test_bad_inputs_are_named_and_nothing_in_the_leaderboard_is_lost(tmp_path, capsys):
    write_results(tmp_path / "good", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "good"], tmp_path / "out")
    before = set((tmp_path / "out" / "leaderboard.csv").read_text().splitlines())

    bad = tmp_path / "bad"
    truncated = write_results(bad, "smollm", GEMMA_SCORES, date="2026-11-02T10:00:00")
    truncated.write_text(truncated.read_text()[:200])
    (bad / "results_not_json.json").write_text("<html>502 Bad Gateway</html>")
    (bad / "results_list.json").write_text("[1, 2, 3]")
    write_results(bad, "gemma", {"arc_easy": {"acc": 0.5}}, date="2026-11-03T10:00:00")
    write_results(bad, "gemma", {"random_copy_10": {"exact_match": 0.5, "exact_match_stderr": "N/A"}},
                  date="2026-11-04T10:00:00")
    with pytest.raises(SystemExit) as exit_info:
        main([str(bad), str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert f"{truncated}: is not valid JSON, perhaps truncated" in err
    assert f"{bad / 'results_not_json.json'}: is not valid JSON" in err
    assert f"{bad / 'results_list.json'}: is not an lm-eval results file" in err
    assert "has no copy-tasks task (its tasks: arc_easy); skipped" in err
    assert 'random_copy_10: exact_match has stderr "N/A"; left empty' in err
    assert f"{tmp_path / 'missing'}: no such file or folder" in err

    after = (tmp_path / "out" / "leaderboard.csv").read_text().splitlines()
    assert before <= set(after)
    (na_row,) = [row for row in read_rows(tmp_path / "out") if row["task"] == "random_copy_10"]
    assert (na_row["value"], na_row["stderr"]) == ("0.5", "")


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
    assert "columns are not those of leaderboard schema 1" in capsys.readouterr().err
    assert (out / "leaderboard.csv").read_text() == "model,score\nx,1\n"


def test_plots_are_valid_pngs_one_per_family_and_variant(tmp_path):
    write_results(tmp_path / "in", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    plots = sorted((tmp_path / "out" / "plots").iterdir())
    assert [path.name for path in plots] == ["phonebook_copy.png", "phonebook_copy_tf.png"]
    for path in plots:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 100 and height > 100
        assert data[-8:-4] == b"IEND"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "![phonebook_copy.png](plots/phonebook_copy.png)" in summary


def test_summary_numbers_on_hand_worked_curves():
    # exact match 1.0, 0.5, 0.25 at 10, 100, 1000: stays >= 50% up to 100; trapezoids over
    # log10 length: (1 + 0.5) / 2 + (0.5 + 0.25) / 2 = 1.125 over a span of 2 decades.
    points = [(10, 1.0), (100, 0.5), (1000, 0.25)]
    assert effective_length(points) == 100
    assert area_under_curve(points) == pytest.approx(0.5625)
    assert effective_length([(20, 0.4), (50, 0.9)]) is None


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


@pytest.mark.slow
def test_leaderboard_of_a_real_lm_eval_run(tmp_path):
    from conftest import run_command

    run = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_10,random_copy_tf_10",
                       "--metadata", "copy_tasks_docs=4", "--output_path", str(tmp_path / "results"),
                       "--log_samples"], cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    made = run_command(["copy-tasks", "leaderboard", str(tmp_path / "results"), "--out", str(tmp_path / "out")],
                       cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    rows = read_rows(tmp_path / "out")
    exact = [(row["task"], row["value"], row["n"], row["architecture"], row["copy_tasks_version"])
             for row in rows if row["metric"] == "exact_match"]
    assert exact == [("random_copy_10", "1.0", "4", "reference model", "0.1.0"),
                     ("random_copy_tf_10", "1.0", "4", "reference model", "0.1.0")]
    assert os.path.getsize(tmp_path / "out" / "plots" / "random_copy.png") > 0
