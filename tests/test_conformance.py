"""The conformance battery: every style of answering gets the verdict the README states, on
every family and variant, under our rule and (generation) the authors', through lm-eval
(`simple_evaluate`, and once through the CLI)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import lm_eval
import pytest
from conftest import read_results, run_command, source_options
from lm_eval.tasks import TaskManager

import copy_tasks.models.scripted_lm  # noqa: F401  (registers `scripted`)
from copy_tasks.experiments.tiny_models import build_tokenizer
from copy_tasks.probes import copying
from copy_tasks.probes.conformance import STYLES, verdict_table, write_answer_key
from copy_tasks.probes.task_docs import generate_docs
from copy_tasks.probes.families import FAMILIES, c4_copy, c4_copy_shuffled, dup_ngram_copy, parse_task_name, random_copy
from copy_tasks.probes.family import Family

ROOT = Path(__file__).resolve().parent.parent
DOCS = 3
LENGTHS_PER_FAMILY = 2


@dataclass(frozen=True)
class Battery:
    tasks: tuple[str, ...]
    answers: Path
    tokenizer: Path
    metadata: dict
    task_manager: TaskManager  # lm-eval's task index, built once: most of an evaluate's time

    def model_args(self, style: str) -> str:
        return f"style={style},answers={self.answers},tokenizer={self.tokenizer}"


@pytest.fixture(scope="module")
def battery(tmp_path_factory, local_sources) -> Battery:
    """The two shortest lengths of every family, both variants, 3 docs each; the answer key; a
    tokenizer trained on those docs; a task manager whose tasks read the battery's metadata."""
    folder = tmp_path_factory.mktemp("battery")
    tasks, docs = [], []
    for family in FAMILIES.values():
        for length in family.lengths[:LENGTHS_PER_FAMILY]:
            docs += generate_docs(family.name, length, 1234, DOCS, source_options(family.name, local_sources))
            tasks += [family.task_name(length, teacher_forced) for teacher_forced in (False, True)]
    tokenizer = build_tokenizer([doc["prompt"] + doc["continuation"] for doc in docs], vocab_size=1000)
    tokenizer.save_pretrained(folder / "tokenizer")
    # char_tokens differs from the canonical segmentation only where a token has 2+ characters.
    for doc in docs:
        ids = tokenizer(doc["continuation"], add_special_tokens=False)["input_ids"]
        assert len(ids) < len(doc["continuation"]), doc["continuation"]
    metadata = {"copy_tasks_docs": DOCS, "copy_tasks_text_source": local_sources["text_source"],
                "copy_tasks_squad_source": local_sources["squad_source"]}
    return Battery(tuple(tasks), write_answer_key(docs, folder / "answers.json"), folder / "tokenizer", metadata,
                   TaskManager(metadata=metadata))


RULES = {"exact_match": False, "authors_exact_match": True}  # metric -> is the authors' rule


def rules_of(task: str) -> list[str]:
    """The verdict metrics of a task: both rules for generation, ours for teacher forcing."""
    return ["exact_match"] if parse_task_name(task)[1] == "teacher_forced" else list(RULES)


def read_verdicts(results: dict, tasks) -> dict[tuple[str, str], float]:
    return {(task, metric): results[task][f"{metric},none"] for task in tasks for metric in rules_of(task)}


def evaluate(battery: Battery, style: str, chat: bool = False) -> dict:
    """lm-eval's results of every battery task answered in `style` (under the tokenizer's chat
    template if `chat`), samples logged. The battery's task manager builds the tasks anew (and
    their docs) from its index."""
    return lm_eval.simple_evaluate(model="scripted", model_args=battery.model_args(style), tasks=list(battery.tasks),
                                   task_manager=battery.task_manager, apply_chat_template=chat, log_samples=chat)


def verdicts(battery: Battery, style: str) -> dict[tuple[str, str], float]:
    """(task, rule) -> the verdict of every battery task, answered in `style`, through lm-eval."""
    return read_verdicts(evaluate(battery, style)["results"], battery.tasks)


def expected_verdicts(battery: Battery, style: str) -> dict[tuple[str, str], float]:
    expected = {}
    for task in battery.tasks:
        family, variant, _ = parse_task_name(task)
        for metric in rules_of(task):
            expected[(task, metric)] = float(STYLES[style].expected(family, variant == "teacher_forced",
                                                                    authors=RULES[metric]))
    return expected


@pytest.mark.parametrize("style", STYLES)
def test_every_style_gets_the_stated_verdict_on_every_family_and_variant(battery, style):
    assert verdicts(battery, style) == expected_verdicts(battery, style)


CHAT_STYLES = ("end_of_turn", "restated_start", "no_leading_space", "first_wrong")


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


@pytest.mark.slow
@pytest.mark.parametrize("style, chat", [("end_of_turn", False), ("restated_start", True)])
def test_battery_through_the_lm_eval_command(battery, tmp_path, style, chat):
    result = run_command(
        ["copy-tasks", "run", "--model", "scripted", "--model_args", battery.model_args(style),
         "--tasks", ",".join(battery.tasks), "--metadata", json.dumps(battery.metadata),
         "--output_path", str(tmp_path), *(["--apply_chat_template"] if chat else [])],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = read_results(tmp_path)[0]
    assert read_verdicts(results["results"], battery.tasks) == expected_verdicts(battery, style)
    formats = {results["configs"][task]["metadata"]["copy_tasks_prompt_format"] for task in battery.tasks}
    assert formats == {"chat" if chat else "plain"}
