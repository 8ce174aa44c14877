"""Leaderboard rows from a results file (`copy_tasks.report.rows`): exactly its metrics, the run's
flags, what is left out and why."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.report.build import build_leaderboard

GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}


def read_rows(out: Path) -> list[dict]:
    with (out / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize(("metric", "value", "message"), [
    ("exact_match_stderr", -0.1, "not a number >= 0"),
    ("exact_match", float("inf"), "is not a finite number"),
    ("exact_match", 1e308, "is not a finite number"),
])
def test_values_that_would_poison_the_output_are_left_empty_and_named(tmp_path, metric, value, message):
    scores = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.1} | {metric: value},
              "phonebook_copy_50": {"exact_match": 0.25}}
    write_results(tmp_path / "in", "pythia", scores)
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert any(message in problem.message for problem in report.problems)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")  # and the next run into the folder works
    assert "| pythia | transformer |" in (tmp_path / "out" / "summary.md").read_text()


def test_a_length_0_task_is_left_out(tmp_path):
    write_results(tmp_path / "in", "pythia", {"phonebook_copy_0": {"exact_match": 1.0}, **GOOD})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert {row["task"] for row in read_rows(tmp_path / "out")} == set(GOOD)


@pytest.mark.parametrize("key", ["", results_key(""), results_key(" ")])
def test_a_metric_with_no_name_is_left_out_and_the_next_build_reads_the_csv(tmp_path, key):
    """Found by the hostile-file property test: a results file whose task held the key "" wrote a row with
    an empty metric, and the next build refused the CSV it had written itself."""
    file = write_results(tmp_path / "in", "nameless", GOOD)
    data = json.loads(file.read_text())
    data["results"]["phonebook_copy_20"][key] = 0.5
    file.write_text(json.dumps(data))
    for _ in range(2):
        report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert all(row["metric"].strip() for row in read_rows(tmp_path / "out"))
    assert any("a metric with no name" in problem.message for problem in report.problems)


GEMMA_SCORES = {
    "phonebook_copy_20": {"exact_match": 0.9, "exact_match_stderr": 0.1},
    "phonebook_copy_tf_50": {"exact_match": 0.5, "exact_match_stderr": 0.25, "bits_per_char": 0.125,
                             "bits_per_char_stderr": 0.0625},
}


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
        "schema_version": "4", "run": "gemma@2026-11-01T10:00:00Z", "model": "gemma", "name": "gemma",
        "model_revision": "main", "model_source": "", "backend": "hf", "dtype": "torch.float32",
        "parameters": "1000", "architecture": "transformer", "model_type": "gemma3_text", "state_bits": "",
        "state_bits_per_token": "",
        "lm_eval_version": "0.4.13", "copy_tasks_version": "0.1.0", "task": "phonebook_copy_20",
        "family": "phonebook_copy", "variant": "generation", "task_version": "1.0",
        "task_hash": "hash-phonebook_copy_20", "docs_sha256": "sha-phonebook_copy_20", "seed": "1234",
        "length": "20", "unit": "entries", "metric": "exact_match", "n": "20", "value": "0.9",
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


def test_predict_only_results_are_skipped_with_a_note(tmp_path):
    predictions = write_results(tmp_path / "in", "gemma",
                                {"phonebook_copy_20": {"bypass": 999, "bypass_stderr": "N/A"}})
    write_results(tmp_path / "in", "smollm", {"phonebook_copy_20": {"exact_match": 0.5}}, date="2026-11-02T10:00:00")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [row["model"] for row in read_rows(tmp_path / "out")] == ["smollm"]
    assert [problem.message for problem in report.problems] == [
        "holds predictions only (lm-eval --predict_only): no scores to add; run it without --predict_only; skipped"]
    assert [problem.path for problem in report.skipped_files] == [str(predictions)]  # exit status 1
