"""The conformance battery's run for the tests: every family at its two shortest lengths, both
variants, the answer key and a tokenizer, and the verdicts the README states."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import source_options
from lm_eval.tasks import TaskManager

import copy_tasks.models.scripted_lm  # noqa: F401  (registers `scripted`)
from copy_tasks.experiments.tiny_models import build_tokenizer
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.conformance import STYLES, write_answer_key
from copy_tasks.probes.families import FAMILIES, parse_task_name
from copy_tasks.probes.task_docs import generate_docs

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
    """The verdict metrics of a task: both rules for generation (ours alone for a family with no
    authors' rule, `mqar`), ours for teacher forcing."""
    family, variant, _ = parse_task_name(task)
    if variant == "teacher_forced":
        return ["exact_match"]
    return [metric for metric in RULES if not RULES[metric] or metric in FAMILIES[family].authors_metrics]


def read_verdicts(results: dict, tasks) -> dict[tuple[str, str], float]:
    return {(task, metric): results[task][results_key(metric)] for task in tasks for metric in rules_of(task)}


def expected_verdicts(battery: Battery, style: str) -> dict[tuple[str, str], float]:
    expected = {}
    for task in battery.tasks:
        family, variant, _ = parse_task_name(task)
        for metric in rules_of(task):
            expected[(task, metric)] = float(STYLES[style].expected(family, variant == "teacher_forced",
                                                                    authors=RULES[metric]))
    return expected
