"""Answers in multi-byte characters through lm-eval's `hf`, under a byte-fallback tokenizer (the
kind Llama, Mistral and Gemma ship): the early stop (`copy_tasks.harness.answer_stops`) never
judges a row on a character not yet whole, so every verdict is the finished answer's, at
batch 1 and 4 (issue 51: a row was judged settled after the first byte of a character, and
lm-eval decoded the partial bytes as U+FFFD).

A scripted model (`copy_tasks.models.scripted_hf`) writes, after each prompt, a right answer in one of the ways
below; the finished answer's verdict is what our scorer gives the whole text it writes."""

from __future__ import annotations

import pytest

import copy_tasks
from copy_tasks.experiments.tiny_models import build_byte_fallback_tokenizer
from copy_tasks.models.scripted_hf import write_scripted_model
from copy_tasks.probes.conformance import MULTIBYTE_OPTIONS as OPTIONS
from copy_tasks.probes.conformance import MULTIBYTE_WRITINGS as WRITINGS
from copy_tasks.probes.families import family_named
from copy_tasks.probes.public_scorer import cut_at_stops
from copy_tasks.probes.task_docs import generate_docs

DOCS, SEED = 3, 1234
METADATA = {"copy_tasks_docs": DOCS, "copy_tasks_mqar_format": "zoology"}


def questions(task: str):
    family_name, length = task.rsplit("_", 1)
    family = family_named(family_name)
    for doc in generate_docs(family.name, int(length), SEED, DOCS, OPTIONS.get(family.name, ())):
        yield from family.request_docs(doc)


@pytest.fixture(scope="module")
def scripted_model(tmp_path_factory):
    tokenizer = build_byte_fallback_tokenizer()
    script = {question["prompt"]: WRITINGS[task](question["continuation"])
              for task in WRITINGS for question in questions(task)}
    for text in script.values():  # what the model writes decodes back to itself
        assert tokenizer.decode(tokenizer.encode(text, add_special_tokens=False)) == text
    assert any(len(tokenizer.encode(text[1:2], add_special_tokens=False)) == 3 for text in script.values())
    return write_scripted_model(tmp_path_factory.mktemp("scripted-hf"), tokenizer, script)


def finished_verdicts(task: str, doc: dict) -> dict[str, float]:
    """What our scorer gives the doc's whole written answers, cut at the stop sequences as
    lm-eval cuts them."""
    family = family_named(doc["family"])
    texts = [cut_at_stops(WRITINGS[task](question["continuation"]), family.stop_sequences)
             for question in family.request_docs(doc)]
    return family.score_generations(texts, doc)


@pytest.mark.slow  # two lm-eval runs
@pytest.mark.parametrize("batch_size", [1, 4])
def test_every_multibyte_answer_gets_the_finished_answers_verdict(scripted_model, batch_size):
    import lm_eval

    results = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={scripted_model}", tasks=list(WRITINGS),
                                      batch_size=batch_size, device="cpu", log_samples=True,
                                      task_manager=copy_tasks.task_manager(metadata=METADATA))
    compared = 0
    for task, samples in results["samples"].items():
        assert len(samples) == DOCS, task
        for sample in samples:
            expected = finished_verdicts(task, sample["doc"])
            assert {metric: sample[metric] for metric in expected} == expected, (task, sample["resps"])
            assert expected["exact_match"] == (0.0 if task == "phonebook_query_first_10" else 1.0), task
            assert not any("\ufffd" in text for response in sample["resps"] for text in response), sample["resps"]
            compared += 1
    assert compared == DOCS * len(WRITINGS)
