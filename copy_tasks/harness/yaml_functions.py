"""The functions our task YAMLs name: `custom_dataset` and `process_results`.

`build_dataset` is called by lm-eval as `fn(**metadata, **dataset_kwargs)`: the YAML
`dataset_kwargs` fix the family, length and variant of a task; the metadata carries our
`copy_tasks_*` options (and the model args, which the docs do not depend on). Whether a doc
fits the model is counted later, against the backend that runs it (`CopyTask`).
"""

from __future__ import annotations

import math
from typing import Any

from copy_tasks.probes.doc_sets import generate_docs
from copy_tasks.probes.families import family_named, task_settings
from copy_tasks.probes.family import VARIANTS
from copy_tasks.probes.options import OptionError


def build_dataset(
    copy_tasks_family: str, copy_tasks_length: Any, copy_tasks_variant: str, **metadata: Any
) -> dict:
    """The docs of one task, each with its generation budget, as `{"test": datasets.Dataset}`."""
    import datasets

    family = family_named(copy_tasks_family)
    length = family.length_option().parse(copy_tasks_length)
    if copy_tasks_variant not in VARIANTS:
        raise OptionError(f"copy_tasks_variant={copy_tasks_variant!r}: allowed are {VARIANTS}")
    settings = task_settings(family, metadata)
    docs = generate_docs(family.name, length, settings.seed, settings.docs, settings.doc_options)
    rows = [dict(doc, generation_budget=family.generation_budget(doc)) for doc in docs]
    return {"test": datasets.Dataset.from_list(rows)}


def process_generation(doc: dict, results: list[str]) -> dict[str, float]:
    """Metrics of one generated answer under our rule and the authors' (lm-eval passes
    `[generation]`)."""
    return family_named(doc["family"]).score_both(results[0], doc)


def process_teacher_forced(doc: dict, results: list[tuple[float, bool]]) -> dict[str, float]:
    """Metrics of one scored continuation (lm-eval passes `[(logprob, is_greedy)]`).

    exact_match is lm-eval's `is_greedy`: every target token is the model's argmax, which is
    what greedy decoding would have produced, token for token. bits_per_char is the answer's
    information under the model, per character: it separates models where exact match is 0.
    """
    logprob, is_greedy = results[0]
    return {
        "exact_match": float(is_greedy),
        "logprob": float(logprob),
        "bits_per_char": -float(logprob) / math.log(2) / len(doc["continuation"]),
    }
