"""The functions our task YAMLs name: `custom_dataset` and `process_results`.

`build_dataset` is called by lm-eval as `fn(**metadata, **dataset_kwargs)`: the YAML
`dataset_kwargs` fix the family, length and variant of a task; the metadata carries our
`copy_tasks_*` options (and the model args, which the docs do not depend on). Whether a doc
fits the model is counted later, against the backend that runs it (`CopyTask`).
"""

from __future__ import annotations

from typing import Any

from copy_tasks.probes.families import family_named
from copy_tasks.probes.public_scorer import teacher_forced_metrics
from copy_tasks.probes.task_docs import task_rows


def build_dataset(
    copy_tasks_family: str, copy_tasks_length: Any, copy_tasks_variant: str, **metadata: Any
) -> dict:
    """The docs of one task, each with its generation budget, as `{"test": datasets.Dataset}`."""
    import datasets

    return {"test": datasets.Dataset.from_list(task_rows(copy_tasks_family, copy_tasks_length, copy_tasks_variant,
                                                         metadata))}


def process_generation(doc: dict, results: list[str]) -> dict[str, float]:
    """Metrics of a doc's generated answers under our rule and the authors' (lm-eval passes one
    generation per request of the doc: `[generation]`, or one per question, `Family.queries`)."""
    return family_named(doc["family"]).score_generations(results, doc)


def process_teacher_forced(doc: dict, results: list[tuple[float, bool]]) -> dict[str, float]:
    """Metrics of a doc's scored continuations (lm-eval passes `[(logprob, is_greedy)]`, one per
    request): exact_match is lm-eval's `is_greedy`, combined over a doc's questions, as the public
    scorer gives them (`copy_tasks.probes.public_scorer.score_teacher_forced`)."""
    return teacher_forced_metrics(doc, list(results))
