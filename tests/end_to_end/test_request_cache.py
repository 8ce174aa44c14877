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


def run_with(tmp_path, name: str, *extra: str):
    return run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_20", "--limit", "3",
         "--cache_requests", "true", "--output_path", str(tmp_path / name), "--log_samples", *extra],
        cwd=tmp_path, LM_HARNESS_CACHE_PATH=str(tmp_path / "cache"),
    )


def sent_generation_arguments(tmp_path, name: str) -> list[dict]:
    _, samples = read_results(tmp_path / name)
    return [sample["arguments"]["gen_args_0"]["arg_1"] for sample in samples["random_copy_20"]]


def test_the_cache_is_keyed_on_the_generation_arguments(tmp_path):
    """Finding 1: a greedy run after a sampling one was sent the sampling run's cached requests."""
    sampling = run_with(tmp_path, "sampling", "--gen_kwargs", "do_sample=True,temperature=5.0")
    assert sampling.returncode == 0, sampling.stderr[-3000:]
    assert all(arguments["do_sample"] is True for arguments in sent_generation_arguments(tmp_path, "sampling"))
    greedy = run_with(tmp_path, "greedy")
    assert greedy.returncode == 0, greedy.stderr[-3000:]
    assert all(arguments["do_sample"] is False and arguments["temperature"] == 0.0
               for arguments in sent_generation_arguments(tmp_path, "greedy"))
    again = run_with(tmp_path, "sampling-again", "--gen_kwargs", "do_sample=True,temperature=5.0")
    assert again.returncode == 0 and "Building contexts for random_copy_20" not in again.stderr  # its own entry
    assert all(arguments["do_sample"] is True for arguments in sent_generation_arguments(tmp_path, "sampling-again"))


def test_a_cached_prompt_changed_by_hand_is_refused_in_one_line(tmp_path):
    """Finding 2: a cached prompt altered by hand (its doc kept) was sent; the check compared the doc only."""
    import dill

    assert run_with(tmp_path, "first").returncode == 0
    cached = next((tmp_path / "cache").glob("*random_copy_20*.pickle"))
    requests = dill.loads(cached.read_bytes())  # lm-eval's own cache file: the requests of each doc
    first = requests[0][0] if isinstance(requests[0], list) else requests[0]
    first.arguments = ("another prompt", *first.arguments[1:])
    cached.write_bytes(dill.dumps(requests))
    refused = run_with(tmp_path, "second")
    assert refused.returncode == 2, refused.stderr[-3000:]
    last = refused.stderr.strip().splitlines()[-1]
    assert "request cache (--cache_requests)" in last and "--cache_requests refresh" in last
    assert "Traceback" not in refused.stderr
