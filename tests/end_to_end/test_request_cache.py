"""lm-eval's request cache (`--cache_requests true`) never pairs an answer with another doc: it
keys cached requests on the task's name and settings, not on our seed, so copy-tasks adds its
docs' fingerprint and the context to the key, and fits cached requests to the run's model."""

from __future__ import annotations

import json

import dill
import pytest
from conftest import read_results, run_command
from lm_eval.caching import cache

import copy_tasks
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.options import UserError

pytestmark = pytest.mark.slow
TASKS = "random_copy_20,random_copy_tf_20"


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    """lm-eval's request cache in the test's folder (`LM_HARNESS_CACHE_PATH`, which lm-eval reads
    when imported), for the runs in this process and the commands it forks."""
    monkeypatch.setattr(cache, "PATH", str(tmp_path / "cache"))
    return tmp_path / "cache"


def cached_run(tmp_path, name: str, seed: int) -> tuple[dict, dict, str]:
    result = run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--tasks", TASKS, "--limit", "3", "--cache_requests", "true",
         "--metadata", json.dumps({"copy_tasks_seed": seed}), "--output_path", str(tmp_path / name), "--log_samples"],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results, samples = read_results(tmp_path / name)
    return results, samples, result.stderr


def test_a_cached_run_with_another_seed_scores_its_own_docs(tmp_path, cache_folder):
    first, _, _ = cached_run(tmp_path, "seed1234", 1234)
    second, samples, log = cached_run(tmp_path, "seed7", 7)
    third, _, third_log = cached_run(tmp_path, "seed7-again", 7)
    for results in (first, second, third):  # the perfect copier: every doc right, none cut
        assert results["results"]["random_copy_20"][results_key("exact_match")] == 1.0
        assert results["results"]["random_copy_tf_20"][results_key("exact_match")] == 1.0
        assert results["configs"]["random_copy_20"]["metadata"]["copy_tasks_overflow_docs"] == 0
    assert "Building contexts for random_copy_20" in log  # seed 7: not served from seed 1234's cache
    assert "Building contexts for random_copy_20" not in third_log  # the same docs: served from the cache
    assert third["results"]["random_copy_20"][results_key("overflow")] == 0.0  # fitted, not NaN
    sha = {results["configs"]["random_copy_20"]["metadata"]["copy_tasks_docs_sha256"] for results in (first, second)}
    assert len(sha) == 2
    for sample in samples["random_copy_20"]:
        assert sample["arguments"]["gen_args_0"]["arg_0"] == sample["doc"]["prompt"]


def run_with(tmp_path, name: str, *extra: str):
    return run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_20", "--limit", "3",
         "--cache_requests", "true", "--output_path", str(tmp_path / name), "--log_samples", *extra],
        cwd=tmp_path,
    )


def sent_generation_arguments(tmp_path, name: str) -> list[dict]:
    _, samples = read_results(tmp_path / name)
    return [sample["arguments"]["gen_args_0"]["arg_1"] for sample in samples["random_copy_20"]]


def test_the_cache_is_keyed_on_the_generation_arguments(tmp_path, cache_folder):
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


def test_a_cached_prompt_changed_by_hand_is_refused_in_one_line(tmp_path, cache_folder):
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


def cached_evaluate(tasks: list[str], **kwargs) -> dict:
    """An in-process run of the perfect copier over 4 docs of each task, with the request cache."""
    import lm_eval

    from copy_tasks.models import register_backends

    register_backends()
    return lm_eval.simple_evaluate(model="ngram_copier", tasks=tasks, cache_requests=True, log_samples=True,
                                   task_manager=copy_tasks.task_manager(metadata={"copy_tasks_docs": 4}), **kwargs)


def test_samples_after_a_full_cached_run_are_sent_their_own_prompts(cache_folder):
    """Issue 45 finding 2: lm-eval numbers the docs `--samples` chooses 0, 1, ..., and took the
    full run's cached requests, so doc 3 was scored on doc 0's answers (0.0 for the perfect copier)."""
    tasks = ["mqar_8", "lookup_suffix_20"]
    cached_evaluate(tasks)
    chosen = cached_evaluate(tasks, samples={task: [3] for task in tasks})
    for task in tasks:
        assert chosen["results"][task][results_key("exact_match")] == 1.0
        (sample,) = chosen["samples"][task]
        assert sample["doc_id"] == sample["doc"]["index"] == 3
        assert all(arguments[0].startswith(sample["doc"]["prompt"]) for arguments in sample["arguments"])


def test_a_full_cached_run_after_samples_scores_every_doc(cache_folder):
    """Issue 45 finding 16: the cache written by `--samples [0]` (doc 0's requests only) was read
    by the full run, which failed after the model ran on "asks 1 question(s); got 0 answer(s)"."""
    cached_evaluate(["lookup_suffix_20"], samples={"lookup_suffix_20": [0]})
    full = cached_evaluate(["lookup_suffix_20"])
    assert full["results"]["lookup_suffix_20"][results_key("exact_match")] == 1.0
    assert [sample["doc_id"] for sample in full["samples"]["lookup_suffix_20"]] == [0, 1, 2, 3]


def test_a_cache_missing_a_docs_requests_is_refused_before_the_model_runs(cache_folder):
    task = copy_tasks.task_manager(metadata={"copy_tasks_docs": 4}).load(["lookup_suffix_20"])["tasks"]
    task["lookup_suffix_20"].build_all_requests(cache_requests=True)
    (cache_file,) = cache_folder.glob("requests-lookup_suffix_20-*")
    cache_file.write_bytes(dill.dumps(dill.loads(cache_file.read_bytes())[:2]))  # docs 0 and 1 only
    again = copy_tasks.task_manager(metadata={"copy_tasks_docs": 4}).load(["lookup_suffix_20"])["tasks"]
    with pytest.raises(UserError, match=r"lookup_suffix_20: lm-eval's request cache \(--cache_requests\) holds no "
                                        r"request for doc id\(s\) 2, 3 of the 4 this run scores"):
        again["lookup_suffix_20"].build_all_requests(cache_requests=True)
