"""The docs of one task as our lm-eval tasks score them, and their fingerprint.

One function makes the rows of a task (family, length, variant and the `--metadata` options):
the family's docs (`copy_tasks.probes.doc_sets.generate_docs`) with each doc's generation
budget. lm-eval's dataset hook (`copy_tasks.harness.yaml_functions.build_dataset`) and the
exporter (`copy-tasks export`) both call it, and both fingerprint the rows with
`docs_fingerprint`, which the task records in the results under
`configs.<task>.metadata.copy_tasks_docs_sha256`.

    >>> rows = task_rows("phonebook_copy", 10, "generation", {"copy_tasks_docs": 2})
    >>> len(rows), rows[0]["family"], rows[0]["length"], rows[0]["generation_budget"]
    (2, 'phonebook_copy', 10, 50)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.probes.doc_sets import generate_docs
from copy_tasks.probes.families import family_named, task_settings
from copy_tasks.probes.family import VARIANTS
from copy_tasks.probes.options import OptionError


def task_rows(family_name: str, length: Any, variant: str, metadata: Mapping[str, Any]) -> list[dict]:
    """The docs of one task, each with its `generation_budget`, checked as a task checks them:
    a bad family (KeyError), length, variant or option (OptionError) says what is allowed.
    The docs do not depend on the variant: a generation task and its teacher-forced twin
    score the same docs."""
    family = family_named(family_name)
    length = family.length_option().parse(length)
    if variant not in VARIANTS:
        raise OptionError(f"copy_tasks_variant={variant!r}: allowed are {', '.join(VARIANTS)}")
    settings = task_settings(family, metadata)
    docs = generate_docs(family.name, length, settings.seed, settings.docs, settings.doc_options)
    return [dict(doc, generation_budget=family.generation_budget(doc)) for doc in docs]


def docs_fingerprint(docs: Iterable[Mapping[str, Any]]) -> str:
    """sha256 over the prompts, targets and teacher-forced continuations of the docs, in order:
    each doc adds the JSON of `[prompt, target, continuation]`.

    >>> doc = {"prompt": "Ann:", "target": "1", "continuation": " 1", "index": 0}
    >>> docs_fingerprint([doc]) == hashlib.sha256(b'["Ann:", "1", " 1"]').hexdigest()
    True
    >>> docs_fingerprint([])[:12]  # the sha256 of nothing
    'e3b0c44298fc'
    """
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(json.dumps([doc["prompt"], doc["target"], doc["continuation"]]).encode())
    return digest.hexdigest()
