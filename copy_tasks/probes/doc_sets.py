"""Deterministic doc sets: (family, length, seed, count, options) -> docs.

Doc i depends only on (data family, its data version, length, seed, i) and the family's
options, never
on the other docs, so `--limit`, the doc count and data-parallel ranks all see the same doc i.
Doc sets are cached per process, so a generation task and its teacher-forced twin generate the
data once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from copy_tasks.probes.families import family_named
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
    if spec.make_docs is not None:
        docs = spec.make_docs(length, seed, count, **options)
    else:
        docs = [spec.make_doc(doc_rng(spec.seed_key, spec.data_version, length, seed, index), length, **options)
                for index in range(count)]
    for index, doc in enumerate(docs):
        doc.update(family=family, length=length, unit=spec.unit, seed=seed, index=index)
    return tuple(docs)
