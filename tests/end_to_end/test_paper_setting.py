"""The paper's own setting: a 2048-token model (as Pythia and HF Mamba read) runs every offline
family and both C4 families to the end through plain `lm_eval --model hf`; a doc overflows
exactly when its prompt and answer do not fit, and every budget fits beside its prompt.

Every length of every family runs, but the passkey's beyond 5,000 words: their prompts of
10,000 to 100,000 words (up to 250,000 tokens, 40 times the context at 5,000 words already)
overflow as the 5,000 words' do, and tokenizing them, several times a doc, took half the run."""

from __future__ import annotations

import json
import math

import pytest
from conftest import read_results, run_command
from text_corpus import document, write_corpus

from copy_tasks.experiments.suite import offline_families
from copy_tasks.experiments.tiny_models import build_tiny_model, phone_book_texts, stop_at_once
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.budgets import ANSWER_MARGIN, OVERFLOW_BUDGET
from copy_tasks.probes.families import FAMILIES, parse_task_name

pytestmark = pytest.mark.slow
CONTEXT = 2048
LONGEST_PASSKEY = 5000  # words


def tasks() -> list[str]:
    """The groups of each offline family, both variants (what `copy_tasks_offline` runs), the
    passkey's tasks up to `LONGEST_PASSKEY` words in its groups' stead, and the generation
    groups of both C4 families."""
    names = []
    for family in offline_families():
        if family.name == "passkey_recall":
            names += [family.task_name(length, teacher_forced=teacher_forced) for teacher_forced in (False, True)
                      for length in family.lengths if length <= LONGEST_PASSKEY]
        else:
            names += [family.name, f"{family.name}_tf"]
    return [*names, "c4_copy", "c4_copy_shuffled"]


@pytest.fixture(scope="module")
def paper_setting_run(tmp_path_factory):
    """A tiny GPT-NeoX whose BPE tokenizer learnt prose, phone books and spaced letters, run at
    max_length=2048 over `tasks()`, one doc a task.
    Its generations end at once (`stop_at_once`): the assertions are about prompts, budgets and
    overflow, and a random model would spend each doc's whole budget of decoding steps."""
    root = tmp_path_factory.mktemp("paper-setting")
    prose = [document(700, seed) for seed in range(6)]
    letters = [" ".join("abcdefghijklmnopqrstuvwxyz"[(7 * i + j) % 26] for j in range(300)) for i in range(6)]
    model = stop_at_once(build_tiny_model("gpt_neox", root / "model", vocab_size=1000,
                                          tokenizer_texts=prose + letters + phone_book_texts()))
    corpus = write_corpus(root / "prose")
    out = root / "out"
    result = run_command(
        ["lm_eval", "--model", "hf", "--model_args", f"pretrained={model},max_length={CONTEXT}",
         "--device", "cpu", "--tasks", ",".join(tasks()), "--limit", "1",
         "--metadata", json.dumps({"copy_tasks_docs": 1, "copy_tasks_text_source": str(corpus)}),
         "--output_path", str(out), "--log_samples"],
        cwd=root,
    )
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    return result, read_results(out), lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def test_the_run_finishes(paper_setting_run):
    result, _, _ = paper_setting_run
    assert result.returncode == 0, result.stderr[-3000:]
    assert "must be less than model's maximum sequence length" not in result.stderr


def test_a_doc_overflows_exactly_when_its_prompt_and_answer_do_not_fit(paper_setting_run):
    _, (results, samples), count = paper_setting_run
    outcomes = []
    for task, logged in samples.items():
        family, variant, _ = parse_task_name(task)
        for sample in logged:
            doc = sample["doc"]
            prompt = count(doc["prompt"])
            if variant == "teacher_forced":  # hf keeps max_length + 1 tokens of context plus continuation
                fits = count(doc["prompt"] + doc["continuation"]) <= CONTEXT + 1
            else:
                answer = max(count(doc["prompt"] + text) for text in FAMILIES[family].answers(doc)) - prompt
                fits = prompt + answer + ANSWER_MARGIN <= CONTEXT
                budget = sample["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"]
                assert (prompt + budget <= CONTEXT) if fits else budget == OVERFLOW_BUDGET, task
            assert sample["overflow"] == float(not fits), task
            assert math.isnan(sample["exact_match"]) == (not fits), task
            outcomes.append((task, fits))
    fitting = {task for task, fits in outcomes if fits}
    assert fitting and len(fitting) < len(outcomes)  # both kinds occur at 2048 tokens
    assert {"c4_copy_500", "random_copy_500"} <= fitting  # they fit once budgets fit the room
    assert "phonebook_copy_1000" not in fitting


def test_every_task_and_group_holds_every_metric(paper_setting_run):
    _, (results, _), _ = paper_setting_run
    for task, metrics in results["results"].items():
        parsed = parse_task_name(task)
        if parsed is None:
            continue
        family, variant, _ = parsed
        names = ("exact_match", "logprob", "bits_per_char") if variant == "teacher_forced" else \
            FAMILIES[family].generation_metrics
        assert {results_key(name) for name in (*names, "overflow")} <= set(metrics), task
    for group in ("phonebook_copy", "random_copy", "c4_copy"):
        assert math.isnan(results["results"][group][results_key("exact_match")])  # some length did not fit
        assert 0 < results["results"][group][results_key("overflow")] < 1
