"""End-to-end: `copy-tasks run` with the reference models."""

from __future__ import annotations

import json

import pytest
from conftest import COPY_FAMILIES, read_results, run_command
from text_corpus import write_corpus

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
    assert {results["results"][task]["exact_match,none"] for task in tasks} == {1.0}


BITS_50 = 276  # the published B: 50 letters at 4.70 bits and room for control


def test_copy_tasks_run_with_the_bounded_state_model(tmp_path):
    result = run_command(
        ["copy-tasks", "run", "--model", "bounded_state", "--model_args", f"bits={BITS_50}",
         "--tasks", "random_copy_20,random_copy_100,random_copy_tf_20,lookup_prefix_tf_1000",
         "--limit", "5", "--metadata", json.dumps({"copy_tasks_docs": 5}), "--output_path", str(tmp_path / "out")],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = read_results(tmp_path / "out")[0]["results"]
    assert [results[t]["exact_match,none"] for t in ("random_copy_20", "random_copy_100", "random_copy_tf_20",
                                                     "lookup_prefix_tf_1000")] == [1.0, 0.0, 1.0, 1.0]
