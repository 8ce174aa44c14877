"""The docs of one task: drawn deterministically, as our lm-eval tasks score them, and their
fingerprint.

`generate_docs` draws a task's docs: (family, length, seed, count, options) -> docs. Doc i
depends only on (data family, its data version, length, seed, i) and the family's options,
never on the other docs, so `--limit`, the doc count and data-parallel ranks all see the same
doc i. Doc sets are cached per process, so a generation task and its teacher-forced twin
generate the data once.

`task_rows` makes the rows of a task (family, length, variant and the `--metadata` options):
the family's docs with each doc's generation budget. lm-eval's dataset hook
(`copy_tasks.harness.yaml_functions.build_dataset`) and the exporter (`copy-tasks export`) both
call it, and both fingerprint the rows with
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
from functools import lru_cache
from typing import Any

from copy_tasks.probes.families import family_named, task_settings
from copy_tasks.probes.family import VARIANTS
from copy_tasks.probes.options import OptionError
from copy_tasks.probes.seeding import doc_rng


@lru_cache(maxsize=64)
def generate_docs(
    family: str, length: int, seed: int, count: int, doc_options: tuple[tuple[str, Any], ...] = (),
) -> tuple:
    """`count` docs of one task: the family's doc fields plus identification fields.

    `doc_options` are the family's options as (argument, value) pairs; omitted ones take
    their defaults. The family's `data_version` keys the random draws.

    >>> docs = generate_docs("phonebook_copy", 20, 1234, 2)
    >>> [d["index"] for d in docs], docs[0]["unit"], docs[0]["prompt"].count("\\n")
    ([0, 1], 'entries', 24)
    """
    spec = family_named(family)
    options = {option.argument: option.default for option in spec.options} | dict(doc_options)
    if spec.select_docs is not None:
        docs = spec.select_docs(length, seed, count, **options)
    else:
        docs = [spec.draw_doc(doc_rng(spec.data_name, spec.data_version, length, seed, index), length, **options)
                for index in range(count)]
    for index, doc in enumerate(docs):
        doc.update(family=family, length=length, unit=spec.unit, seed=seed, index=index)
    return tuple(docs)


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
    each doc adds the JSON of `[prompt, target, continuation]`, a doc of several questions
    (`Family.queries`) that of each question's.

    >>> doc = {"family": "phonebook_copy", "prompt": "Ann:", "target": "1", "continuation": " 1", "index": 0}
    >>> docs_fingerprint([doc]) == hashlib.sha256(b'["Ann:", "1", " 1"]').hexdigest()
    True
    >>> docs_fingerprint([])[:12]  # the sha256 of nothing
    'e3b0c44298fc'
    """
    digest = hashlib.sha256()
    for doc in docs:
        for question in questions_text(doc):
            digest.update(json.dumps(list(question)).encode())
    return digest.hexdigest()


def questions_text(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(prompt, target, continuation) of each question a doc asks (`Family.request_docs`): what a
    model's answers to it answer, and what its fingerprint covers.

    >>> questions_text({"family": "phonebook_copy", "prompt": "Ann:", "target": "1", "continuation": " 1"})
    [('Ann:', '1', ' 1')]
    """
    return [(question["prompt"], question["target"], question["continuation"])
            for question in family_named(doc["family"]).request_docs(doc)]
