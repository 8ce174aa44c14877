"""lm-eval's request cache (`--cache_requests true`) never pairs an answer with another doc: it
keys cached requests on the task's name and settings, not on our seed, so copy-tasks adds its
docs' fingerprint and the context to the key, and fits cached requests to the run's model."""

from __future__ import annotations

import json

import pytest
from conftest import read_results, run_command

pytestmark = pytest.mark.slow
TASKS = "random_copy_20,random_copy_tf_20"


def cached_run(tmp_path, name: str, seed: int) -> tuple[dict, dict, str]:
    result = run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--tasks", TASKS, "--limit", "3", "--cache_requests", "true",
         "--metadata", json.dumps({"copy_tasks_seed": seed}), "--output_path", str(tmp_path / name), "--log_samples"],
        cwd=tmp_path, LM_HARNESS_CACHE_PATH=str(tmp_path / "cache"),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results, samples = read_results(tmp_path / name)
    return results, samples, result.stderr


def test_a_cached_run_with_another_seed_scores_its_own_docs(tmp_path):
    first, _, _ = cached_run(tmp_path, "seed1234", 1234)
    second, samples, log = cached_run(tmp_path, "seed7", 7)
    third, _, third_log = cached_run(tmp_path, "seed7-again", 7)
    for results in (first, second, third):  # the perfect copier: every doc right, none cut
        assert results["results"]["random_copy_20"]["exact_match,none"] == 1.0
        assert results["results"]["random_copy_tf_20"]["exact_match,none"] == 1.0
        assert results["configs"]["random_copy_20"]["metadata"]["copy_tasks_overflow_docs"] == 0
    assert "Building contexts for random_copy_20" in log  # seed 7: not served from seed 1234's cache
    assert "Building contexts for random_copy_20" not in third_log  # the same docs: served from the cache
    assert third["results"]["random_copy_20"]["overflow,none"] == 0.0  # fitted, not NaN
    sha = {results["configs"]["random_copy_20"]["metadata"]["copy_tasks_docs_sha256"] for results in (first, second)}
    assert len(sha) == 2
    for sample in samples["random_copy_20"]:
        assert sample["arguments"]["gen_args_0"]["arg_0"] == sample["doc"]["prompt"]
