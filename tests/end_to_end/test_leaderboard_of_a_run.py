"""End-to-end: `copy-tasks leaderboard` on the results of a real `lm_eval` run."""

from __future__ import annotations

import csv
import os

import pytest

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


def read_rows(out):
    with (out / "leaderboard.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


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
