"""End-to-end: `copy-tasks suite` on the reference models."""

from __future__ import annotations

import csv

import pytest
from conftest import run_command

from copy_tasks.experiments.suite import SMOKE_LENGTHS, offline_families

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


def test_suite_of_the_reference_models_writes_the_leaderboard(tmp_path):
    """The smoke preset: every code path of the suite at two lengths a family, 2 docs (the reference
    models' every length is checked in-process: tests/models/test_ngram_copier.py and
    test_bounded_state.py)."""
    result = run_command(["copy-tasks", "suite", "--preset", "smoke", "--models", "ngram_copier,bounded_state",
                          "--out", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    offline_tasks = 2 * sum(len(family.lengths[:SMOKE_LENGTHS]) for family in offline_families())  # both variants
    assert f"[1/2] ngram_copier: {offline_tasks} tasks, 2 docs per task" in result.stderr
    assert "[2/2] bounded_state: done in" in result.stderr
    # quiet: the steps and a summary on the terminal, lm-eval's own output (its tables) in the logs
    assert "|Version|" not in result.stderr + result.stdout and len(result.stderr.splitlines()) <= 10
    assert "copy-tasks: 2 runs in" in result.stderr and "lm-eval's output is in" in result.stderr
    assert "|Version|" in (tmp_path / "out" / "logs" / "ngram_copier.log").read_text()  # lm-eval's table
    with (tmp_path / "out" / "leaderboard.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    copier = [row for row in rows if row["model"] == "ngram_copier" and row["metric"] == "exact_match"]
    assert len(copier) == offline_tasks
    # it copies every answer; a flip-flop's bit it reads off an earlier read, which need not hold it
    assert {row["value"] for row in copier if row["family"] != "flip_flop"} == {"1.0"}
    assert {row["n"] for row in rows} == {"2"}
    assert (tmp_path / "out" / "plots" / "lookup_suffix.png").is_file()
    assert "| ngram_copier | reference model | - |" in (tmp_path / "out" / "summary.md").read_text()
    for results in (tmp_path / "out" / "results").rglob("results_*.json"):
        assert '"config_source": "copy_tasks/task_configs/' in results.read_text()
