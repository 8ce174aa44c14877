"""The conformance battery: every style of answering gets the verdict the README states, on
every family and variant, under our rule and (generation) the authors', through lm-eval
(`simple_evaluate`, and once through the CLI)."""

from __future__ import annotations

import lm_eval
import pytest
from conformance_battery import (
    Battery,
    expected_verdicts,
    read_verdicts,
)
from conftest import ROOT

import copy_tasks.models.scripted_lm  # noqa: F401  (registers `scripted`)
from copy_tasks.probes import copying
from copy_tasks.probes.conformance import STYLES, verdict_table
from copy_tasks.probes.families import FAMILIES, c4_copy, c4_copy_shuffled, dup_ngram_copy, parse_task_name, random_copy
from copy_tasks.probes.family import Family
from copy_tasks.probes.task_docs import generate_docs


def evaluate(battery: Battery, style: str, chat: bool = False) -> dict:
    """lm-eval's results of every battery task answered in `style` (under the tokenizer's chat
    template if `chat`), samples logged. The battery's task manager builds the tasks anew (and
    their docs) from its index."""
    return lm_eval.simple_evaluate(model="scripted", model_args=battery.model_args(style), tasks=list(battery.tasks),
                                   task_manager=battery.task_manager, apply_chat_template=chat, log_samples=chat)


def verdicts(battery: Battery, style: str) -> dict[tuple[str, str], float]:
    """(task, rule) -> the verdict of every battery task, answered in `style`, through lm-eval."""
    return read_verdicts(evaluate(battery, style)["results"], battery.tasks)


CHAT_STYLES = ("end_of_turn", "restated_start", "no_leading_space", "first_wrong")


@pytest.mark.parametrize("style", STYLES)
def test_every_style_gets_the_stated_verdict_on_every_family_and_variant(battery, style):
    assert verdicts(battery, style) == expected_verdicts(battery, style)


@pytest.mark.parametrize("style", CHAT_STYLES)
def test_chat_styles_get_the_stated_verdict_under_a_chat_template(battery, style):
    """Under --apply_chat_template the model answers after the assistant's prefill: the same
    verdicts as without a template."""
    results = evaluate(battery, style, chat=True)
    assert read_verdicts(results["results"], battery.tasks) == expected_verdicts(battery, style)
    for task in battery.tasks:
        assert results["configs"][task]["metadata"]["copy_tasks_prompt_format"] == "chat"
        for sample in results["samples"][task]:
            context = sample["arguments"][0][0]
            chat = FAMILIES[sample["doc"]["family"]].chat_form(sample["doc"])
            opened = "<|im_start|>assistant\n" + chat.prefill if chat.prefill else "<|im_start|>assistant\n"
            assert context == f"<|im_start|>user\n{chat.user}<|im_end|>\n{opened}", task


def test_the_battery_catches_the_old_answer_tokens_plus_4_budget(battery, monkeypatch):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(battery.tokenizer)
    monkeypatch.setattr(Family, "generation_budget", lambda self, doc: 4 + len(
        tokenizer(doc["continuation"], add_special_tokens=False)["input_ids"]))
    got, expected = verdicts(battery, "char_tokens"), expected_verdicts(battery, "char_tokens")
    wrong = {task for task, metric in got if got[task, metric] != expected[task, metric]}
    assert wrong and all(parse_task_name(task)[1] == "generation" for task in wrong)


def test_the_battery_catches_the_old_blank_line_continuation(battery, monkeypatch):
    copy_doc = copying.copy_doc
    for family_module in (c4_copy, c4_copy_shuffled, dup_ngram_copy, random_copy):
        monkeypatch.setattr(family_module, "copy_doc", lambda words: copy_doc(words) | {
            "continuation": copy_doc(words)["continuation"] + "\n\n"})
    generate_docs.cache_clear()
    try:
        got, expected = verdicts(battery, "eos"), expected_verdicts(battery, "eos")
    finally:
        monkeypatch.undo()
        generate_docs.cache_clear()
    wrong = {task for task, metric in got if got[task, metric] != expected[task, metric]}
    copies_tf = {task for task in battery.tasks
                 if parse_task_name(task)[0] in ("c4_copy", "c4_copy_shuffled", "random_copy", "dup_ngram_copy")
                 and parse_task_name(task)[1] == "teacher_forced"}
    assert wrong == copies_tf


def test_the_scoring_page_states_the_verdicts_the_battery_checks():
    assert verdict_table() in (ROOT / "docs" / "scoring.md").read_text()
