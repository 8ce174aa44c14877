"""End-to-end runs through the real `lm_eval` command on tiny local models (subprocesses).

The models' generations end at once (`stop_at_once`): the assertions are about prompts,
budgets, records and verdicts that agree between the two paths, none about answers, and a
random model would spend every doc's whole budget of decoding steps."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from conftest import read_results, run_command
from text_corpus import write_corpus

from copy_tasks.experiments.tiny_models import stop_at_once
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs

PHONEBOOK = FAMILIES["phonebook_copy"]
TASKS = [PHONEBOOK.task_name(n, tf) for tf in (False, True) for n in PHONEBOOK.lengths]
COPY_TASKS = ["c4_copy_25", "c4_copy_shuffled_25", "random_copy_10", "dup_ngram_copy_3"]
SCORED_COPY_TASKS = ["c4_copy_tf_25", "c4_copy_shuffled_tf_25", "random_copy_tf_10", "dup_ngram_copy_tf_3"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stopping_models(tiny_models, tmp_path_factory) -> dict:
    """The tiny GPT-NeoX and Mamba, their generations ending at their first token."""
    root = tmp_path_factory.mktemp("stopping-models")
    return {arch: stop_at_once(shutil.copytree(tiny_models[arch], root / arch)) for arch in ("gpt_neox", "mamba")}


def write_user_task(folder: Path) -> Path:
    """A user's own loglikelihood task (`user_arith`, 12 docs) in a folder for --include_path."""
    rows = [{"question": f"{i} plus {i} is", "answer": f" {2 * i}"} for i in range(12)]
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    user_tasks = folder / "user_tasks"
    user_tasks.mkdir()
    (user_tasks / "arith.yaml").write_text(
        "task: user_arith\ndataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    train: {data}\n    test: {data}\n"
        "training_split: train\ntest_split: test\nfewshot_split: train\n"
        "output_type: loglikelihood\ndoc_to_text: '{{question}}'\ndoc_to_target: '{{answer}}'\n"
        "target_delimiter: ''\nmetric_list:\n  - metric: acc\n"
    )
    return user_tasks


@pytest.fixture(scope="module", params=["gpt_neox", "mamba"])
def shared_run(request, stopping_models, tmp_path_factory):
    """One `lm_eval` run on one tiny model, 2 docs per task: both phone-book groups (6 docs
    drawn per task, seed 77), the copy families from a local text file, and a user's task from
    --include_path beside ours, under --num_fewshot 5. One run serves several tests: each
    `lm_eval` process spends seconds on imports before its first doc."""
    root = tmp_path_factory.mktemp(f"run-{request.param}")
    corpus = write_corpus(root / "corpus")
    tasks = ["phonebook_copy", "phonebook_copy_tf", *COPY_TASKS, *SCORED_COPY_TASKS, "user_arith"]
    metadata = {"copy_tasks_docs": 6, "copy_tasks_seed": 77, "copy_tasks_text_source": str(corpus / "doc2.txt")}
    out = root / "out"
    result = run_command(
        ["lm_eval", "--model", "hf", "--model_args", f"pretrained={stopping_models[request.param]}",
         "--device", "cpu", "--tasks", ",".join(tasks), "--include_path", str(write_user_task(root)),
         "--num_fewshot", "5", "--limit", "2", "--metadata", json.dumps(metadata),
         "--output_path", str(out), "--log_samples"],
        cwd=root,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return read_results(out), result.stderr, corpus


def test_every_length_that_fits_reports_exact_match_with_stderr(shared_run):
    (results, _), _, _ = shared_run
    for task in TASKS:
        metrics = results["results"][task]
        assert results["n-samples"][task]["effective"] == 2
        if metrics[results_key("overflow")] == 0.0:
            assert not math.isnan(metrics[results_key("exact_match")])
            assert isinstance(metrics[results_key("exact_match", stderr=True)], float)
        elif metrics[results_key("overflow")] == 1.0:  # no doc fits: every metric NaN, none absent
            assert math.isnan(metrics[results_key("exact_match")])
    assert results["results"]["phonebook_copy_100"][results_key("overflow")] == 0.0
    for group in ("phonebook_copy", "phonebook_copy_tf"):  # long books are cut: the group mean is NaN
        assert math.isnan(results["results"][group][results_key("exact_match")])
        assert results["results"][group][results_key("overflow")] > 0


def test_seed_and_doc_count_are_recorded_and_used(shared_run):
    (results, samples), _, _ = shared_run
    config = results["configs"]["phonebook_copy_50"]["metadata"]
    assert (config["copy_tasks_seed"], config["copy_tasks_docs"]) == (77, 6)
    expected = generate_docs("phonebook_copy", 50, 77, 2)
    assert [s["doc"]["prompt"] for s in samples["phonebook_copy_50"]] == [d["prompt"] for d in expected]
    assert [s["arguments"]["gen_args_0"]["arg_0"] for s in samples["phonebook_copy_50"]] == [
        d["prompt"] for d in expected]
    # Each doc's own generation budget reaches lm-eval, and the docs' fingerprint is recorded.
    for sample in samples["phonebook_copy_50"]:
        assert sample["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"] == sample["doc"]["generation_budget"]
    assert len(config["copy_tasks_docs_sha256"]) == 64
    assert config["copy_tasks_docs_sha256"] == results["configs"]["phonebook_copy_tf_50"]["metadata"][
        "copy_tasks_docs_sha256"]


def test_long_books_are_flagged_as_overflowing(shared_run):
    (results, _), stderr, _ = shared_run
    # The tiny models read 2048 tokens; 500 entries take about 6,000.
    for task in ("phonebook_copy_500", "phonebook_copy_1000", "phonebook_copy_tf_1000"):
        assert results["results"][task][results_key("overflow")] == 1.0
        assert results["configs"][task]["metadata"]["copy_tasks_overflow_docs"] == 2  # the docs that ran
    assert results["results"]["phonebook_copy_20"][results_key("overflow")] == 0.0
    assert "phonebook_copy_1000: 2 of 2 docs do not fit the context of 2048 tokens" in stderr


def test_generation_and_teacher_forced_verdicts_agree(shared_run):
    (_, samples), _, _ = shared_run
    compared = 0
    for length in PHONEBOOK.lengths:
        generated = {s["doc_id"]: s["exact_match"] for s in samples[f"phonebook_copy_{length}"] if s["overflow"] == 0}
        forced = {s["doc_id"]: s["exact_match"] for s in samples[f"phonebook_copy_tf_{length}"] if s["overflow"] == 0}
        both = generated.keys() & forced.keys()
        compared += len(both)
        assert {doc: generated[doc] for doc in both} == {doc: forced[doc] for doc in both}
    assert compared >= 10


def test_global_num_fewshot_leaves_our_prompts_alone(shared_run):
    """A user's task from --include_path runs beside ours; --num_fewshot 5 reaches only it."""
    (results, samples), _, _ = shared_run
    assert results["n-shot"]["phonebook_copy_20"] == 0
    assert results["n-shot"]["user_arith"] == 5
    for task in ("phonebook_copy_20", "phonebook_copy_tf_20"):
        for sample in samples[task]:
            assert sample["arguments"]["gen_args_0"]["arg_0"] == sample["doc"]["prompt"]
    user_context = samples["user_arith"][0]["arguments"]["gen_args_0"]["arg_0"]
    assert user_context.count(" is") == 6  # five demonstrations and the question


@pytest.mark.parametrize("fmt", ["natural", "paper"])
def test_lookup_families_in_both_formats(stopping_models, tmp_path, fmt):
    tasks = ["lookup_suffix_50", "lookup_prefix_50", "lookup_suffix_tf_50", "lookup_prefix_tf_50"]
    result = run_command(
        ["lm_eval", "--model", "hf", "--model_args", f"pretrained={stopping_models['gpt_neox']}",
         "--device", "cpu", "--tasks", ",".join(tasks), "--limit", "3",
         "--metadata", json.dumps({"copy_tasks_lookup_format": fmt, "copy_tasks_docs": 3}),
         "--output_path", str(tmp_path), "--log_samples"],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results, samples = read_results(tmp_path)
    assert {results_key("exact_match"), results_key("symbol_accuracy"), results_key("overflow")} <= set(
        results["results"]["lookup_suffix_50"])
    assert {results_key("exact_match"), results_key("logprob")} <= set(results["results"]["lookup_prefix_tf_50"])
    assert results["configs"]["lookup_prefix_50"]["metadata"]["copy_tasks_lookup_format"] == fmt
    suffix, prefix = samples["lookup_suffix_50"], samples["lookup_prefix_50"]
    for s, p in zip(suffix, prefix):
        assert (s["doc"]["string"], s["doc"]["key"]) == (p["doc"]["string"], p["doc"]["key"])
        expected_start = "$" + p["doc"]["key"] + "|" if fmt == "paper" else "Key: "
        assert s["doc"]["prompt"].endswith(s["doc"]["key"] if fmt == "paper" else " ".join(s["doc"]["key"]))
        assert p["arguments"]["gen_args_0"]["arg_0"].startswith(expected_start)
    for task in ("lookup_suffix", "lookup_prefix"):
        generated = {s["doc_id"]: s["exact_match"] for s in samples[f"{task}_50"]}
        assert generated == {s["doc_id"]: s["exact_match"] for s in samples[f"{task}_tf_50"]}


def test_copy_families_from_a_local_text_file(shared_run):
    (results, samples), _, corpus = shared_run
    for task in COPY_TASKS:
        assert {results_key(metric) for metric in ("exact_match", "prefix_match", "authors_exact_match", "overflow")
                } <= set(results["results"][task])
        for sample in samples[task]:
            budget = sample["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"]
            assert budget == FAMILIES[sample["doc"]["family"]].generation_budget(sample["doc"])
            assert sample["arguments"]["gen_args_0"]["arg_1"]["until"] == ["\n\n"]
    for task in SCORED_COPY_TASKS:
        assert {results_key(metric) for metric in ("exact_match", "logprob", "bits_per_char")} <= set(
            results["results"][task])
    c4_text = (corpus / "doc2.txt").read_text().split()
    for sample in samples["c4_copy_25"]:
        passage = sample["doc"]["prompt"].split("\n\n")[0].split()
        assert any(c4_text[i : i + 25] == passage for i in range(len(c4_text) - 24))


@pytest.mark.parametrize("command", [["lm_eval"], ["copy-tasks", "run"]])
def test_unreachable_c4_fails_before_evaluation_with_a_hint(tiny_models, tmp_path, command):
    result = run_command(
        [*command, "--model", "hf", "--model_args", f"pretrained={tiny_models['gpt_neox']}",
         "--device", "cpu", "--tasks", "c4_copy_25", "--limit", "1"],
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "could not load allenai/c4" in result.stderr
    assert "copy_tasks_text_source=PATH" in result.stderr
    assert "Traceback" not in result.stderr and "Running generate_until" not in result.stderr


def test_copy_tasks_run_is_lm_eval_run_with_hf_models(stopping_models, tmp_path):
    """`copy-tasks run` also registers the reference models; lm-eval's own must stay loadable."""
    result = run_command(
        ["copy-tasks", "run", "--model", "hf", "--model_args", f"pretrained={stopping_models['mamba']}",
         "--device", "cpu", "--tasks", "phonebook_copy_20", "--limit", "1", "--output_path", str(tmp_path)],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert read_results(tmp_path)[0]["results"]["phonebook_copy_20"][results_key("exact_match")] in (0.0, 1.0)
