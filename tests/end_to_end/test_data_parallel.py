"""Data parallelism: `accelerate launch -m copy_tasks run ...` over two CPU processes (gloo)
scores the same docs as one process, doc by doc, and records overflow over all docs.

lm-eval's `hf` shards the docs over `accelerate launch`'s processes only when it counts more
than one GPU (`torch.cuda.device_count() > 1`); with none it lets every process run every doc
and rank 0 write. The two-process run here is told there are two devices (`LAUNCHER`), so that
lm-eval really shards on this CPU-only machine: each rank builds and runs its own docs, and
rank 0 gathers the metrics and samples over gloo, as on several GPUs.
"""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path

import pytest
from conftest import read_results, run_command

from copy_tasks.harness.lm_eval_internals import results_key

pytestmark = pytest.mark.slow

TASKS = ["phonebook_copy_10", "phonebook_copy_tf_10"]
# 5 docs: rank 0 runs docs 0, 2, 4 and rank 1 docs 1, 3. A context of 230 tokens cuts some of
# them on each rank (the tiny model's books of 10 entries take 213 to 239 tokens).
METADATA = json.dumps({"copy_tasks_docs": 5, "copy_tasks_seed": 1234})
CONTEXT = 230
LAUNCHER = '''"""`python -m copy_tasks` with lm-eval's hf told there are two devices, so that it shards."""
import torch

from copy_tasks.cli import main

torch.cuda.device_count = lambda: 2
main()
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(tmp_path, processes: int, model: list[str], tasks: list[str], *extra: str):
    """`copy-tasks run` in `processes` CPU processes (through `accelerate launch` when more
    than one: `--model hf` through `LAUNCHER`, other models as `-m copy_tasks`), each on one
    thread; accelerate's config comes from the flags and a fresh HF_HOME, never from the
    user's home. One process is a plain `copy-tasks run` (in a fork: accelerate plays no part)."""
    out = tmp_path / "out"
    args = ["run", *model, "--tasks", ",".join(tasks), "--metadata", METADATA, "--output_path", str(out), *extra]
    if processes == 1:
        return run_command(["copy-tasks", *args], cwd=tmp_path), out
    program = ["-m", "copy_tasks"]
    if model[1] == "hf":
        program = [str(tmp_path / "launcher.py")]
        Path(program[0]).write_text(LAUNCHER)
    command = ["accelerate", "launch", "--multi_gpu", "--num_processes", str(processes), "--num_machines", "1",
               "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(free_port()),
               *program, *args]
    result = run_command(command, cwd=tmp_path, ACCELERATE_USE_CPU="1", HF_HOME=str(tmp_path / "hf_home"))
    return result, out


def hf_model(tiny_models, context: int) -> list[str]:
    return ["--model", "hf", "--model_args", f"pretrained={tiny_models['gpt_neox']},max_length={context}",
            "--device", "cpu"]


@pytest.fixture(scope="module")
def runs(tiny_models, tmp_path_factory):
    """The same two tasks, 5 docs each, with `--log_samples`, in two processes and in one."""
    model = hf_model(tiny_models, CONTEXT)
    outcome = {}
    for processes in (2, 1):
        result, out = launch(tmp_path_factory.mktemp(f"processes-{processes}"), processes, model, TASKS,
                             "--log_samples")
        assert result.returncode == 0, result.stderr[-3000:]
        outcome[processes] = (result, out)
    return outcome


def by_doc(samples: list[dict]) -> dict[int, dict]:
    return {sample["doc_id"]: sample for sample in samples}


def same(a, b) -> bool:
    """Equal, NaN equal to NaN."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def test_two_processes_really_shard_the_docs_and_rank_0_alone_writes(runs):
    result, out = runs[2]
    for task in TASKS:
        for rank in (0, 1):
            assert f"Building contexts for {task} on rank {rank}..." in result.stderr
    assert len(list(out.rglob("results_*.json"))) == 1
    assert sorted(path.name.rsplit("_", 1)[0] for path in out.rglob("samples_*.jsonl")) == [
        f"samples_{task}" for task in TASKS]


def test_two_processes_score_the_same_docs_as_one_doc_by_doc(runs):
    (results2, samples2), (results1, samples1) = (read_results(runs[n][1]) for n in (2, 1))
    for task in TASKS:
        assert results2["n-samples"][task] == results1["n-samples"][task] == {"original": 5, "effective": 5}
        assert results2["configs"][task]["metadata"]["copy_tasks_docs_sha256"] == results1["configs"][task][
            "metadata"]["copy_tasks_docs_sha256"]
        one, two = by_doc(samples1[task]), by_doc(samples2[task])
        assert sorted(two) == sorted(one) == list(range(5))
        for doc_id, sample in one.items():
            assert two[doc_id]["doc"] == sample["doc"]
            assert two[doc_id]["filtered_resps"] == sample["filtered_resps"], (task, doc_id)
            for metric in sample["metrics"]:
                assert same(two[doc_id][metric], sample[metric]), (task, doc_id, metric)
        scores1, scores2 = results1["results"][task], results2["results"][task]
        assert scores2.keys() == scores1.keys()
        for key, value in scores1.items():  # the ranks' docs are summed in another order
            assert scores2[key] == (pytest.approx(value, rel=1e-12, nan_ok=True) if isinstance(value, float)
                                    else value), (task, key)


def test_overflow_is_recorded_over_every_rank_s_docs(runs):
    (results2, samples2), (results1, _) = (read_results(runs[n][1]) for n in (2, 1))
    overflowed = {task: {sample["doc_id"] for sample in samples2[task] if sample["overflow"] == 1.0}
                  for task in TASKS}
    # The setting provokes what is checked: a doc of rank 1 (odd index) is cut in the generation
    # task, so rank 0's own count would be short, and each rank has a doc that fits.
    assert overflowed["phonebook_copy_10"] & {1, 3} and set(range(0, 5, 2)) - overflowed["phonebook_copy_10"]
    for task in TASKS:
        recorded = {key: value for key, value in results2["configs"][task]["metadata"].items()
                    if key.startswith("copy_tasks_")}
        assert recorded["copy_tasks_overflow_docs"] == len(overflowed[task])
        assert recorded == {key: value for key, value in results1["configs"][task]["metadata"].items()
                            if key.startswith("copy_tasks_")}
    assert f"phonebook_copy_10: {len(overflowed['phonebook_copy_10'])} of 5 docs do not fit" in runs[2][0].stderr


def test_a_rank_with_no_doc_that_fits_stops_the_run_in_one_line(tiny_models, tmp_path):
    """At 222 tokens only doc 3 (rank 1's) fits the generation task: lm-eval would gather rank
    1's scores under rank 0's metric names, of which there would be none but overflow."""
    result, out = launch(tmp_path, 2, hf_model(tiny_models, 222), TASKS[:1])
    assert result.returncode != 0
    assert ("copy-tasks: error: phonebook_copy_10: under 2 processes, rank(s) 0 hold no doc that fits the context"
            in result.stderr)
    assert not list(out.rglob("results_*.json"))


def test_a_reference_model_runs_every_doc_in_each_process_and_rank_0_writes(tmp_path):
    """Our analytic models are not data-parallel (world size 1 in every process): each process
    runs every doc, and lm-eval returns results in the first process (LOCAL_RANK 0) only."""
    result, out = launch(tmp_path, 2, ["--model", "ngram_copier"], TASKS, "--log_samples")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr.count("Building contexts for phonebook_copy_10 on rank 0...") == 2
    assert len(list(out.rglob("results_*.json"))) == 1
    results, samples = read_results(out)
    for task in TASKS:  # the copier copies a 10-entry book whole
        assert sorted(sample["doc_id"] for sample in samples[task]) == list(range(5))
        assert results["results"][task][results_key("exact_match")] == 1.0
        assert results["configs"][task]["metadata"]["copy_tasks_overflow_docs"] == 0
