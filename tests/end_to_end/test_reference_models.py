"""End-to-end: `copy-tasks run` with the reference models."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import COPY_FAMILIES, read_results, run_command
from text_corpus import write_corpus

from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.families import FAMILIES

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


def test_copy_tasks_run_with_the_copier(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    # Three docs a task, the ones --limit 3 runs: each doc is drawn from its own index, so these are
    # the first three of the default set, which is not drawn whole.
    metadata = {"copy_tasks_text_source": str(corpus), "copy_tasks_docs": 3}
    result = run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--limit", "3",
         "--tasks", ",".join(f"{family},{family}_tf" for family in COPY_FAMILIES),
         "--metadata", json.dumps(metadata), "--output_path", str(tmp_path / "out")],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results, _ = read_results(tmp_path / "out")
    tasks = [name for name in results["results"] if name[-1].isdigit()]
    assert len(tasks) == sum(2 * len(FAMILIES[family].lengths) for family in COPY_FAMILIES)
    assert {results["results"][task][results_key("exact_match")] for task in tasks} == {1.0}


BITS_50 = 276  # the published B: 50 letters at 4.70 bits and room for control


def test_copy_tasks_run_with_the_bounded_state_model(tmp_path):
    result = run_command(
        ["copy-tasks", "run", "--model", "bounded_state", "--model_args", f"bits={BITS_50}",
         "--tasks", "random_copy_20,random_copy_100,random_copy_tf_20,lookup_prefix_tf_1000",
         "--limit", "5", "--metadata", json.dumps({"copy_tasks_docs": 5}), "--output_path", str(tmp_path / "out")],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    recorded = read_results(tmp_path / "out")[0]
    results = recorded["results"]
    assert [results[t][results_key("exact_match")] for t in ("random_copy_20", "random_copy_100", "random_copy_tf_20",
                                                     "lookup_prefix_tf_1000")] == [1.0, 0.0, 1.0, 1.0]
    assert {config["metadata"]["copy_tasks_state_bits"] for config in recorded["configs"].values()} == {BITS_50}
    # the leaderboard puts its budget in the state_bits column and on the state-size axis
    made = run_command(["copy-tasks", "leaderboard", str(tmp_path / "out"), "--out", str(tmp_path / "board")],
                       cwd=tmp_path)
    assert made.returncode == 0, made.stderr[-2000:]
    with (tmp_path / "board" / "leaderboard.csv").open(newline="") as handle:
        assert {row["state_bits"] for row in csv.DictReader(handle)} == {str(BITS_50)}
    summary = (tmp_path / "board" / "summary.md").read_text()
    # families in name order: random_copy passes 20 and fails 100; lookup_prefix ran teacher-forced only
    assert "| bounded_state\\(bits=276\\) \\[limit=5\\] | generation | 276 | - | 20 |" in summary
    assert (tmp_path / "board" / "plots" / "state_size.png").stat().st_size > 0
