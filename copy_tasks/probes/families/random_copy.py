"""`random_copy`: copy a uniform random string over a-z, the setting of the paper's Theorem 2.7."""

from __future__ import annotations

import math

import numpy as np

from copy_tasks.probes.copying import copy_doc, copy_family
from copy_tasks.probes.family import SuiteLengths, register, up_to

LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")


def make_random_copy_doc(rng: np.random.Generator, length: int) -> dict:
    """`length` letters drawn uniformly from a-z, separated by spaces (one token each for
    common tokenizers), with the string's information content in bits.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_random_copy_doc(doc_rng("random_copy", "1", 4, 0, 0), 4)
    >>> doc["prompt"], doc["target"], round(doc["bits"], 2)
    ('m b h w\\n\\nm b h w\\n\\nm', ' b h w', 18.8)
    """
    symbols = [LETTERS[i] for i in rng.integers(len(LETTERS), size=length).tolist()]
    return copy_doc(symbols) | {"alphabet_size": len(LETTERS), "bits": length * math.log2(len(LETTERS))}


LENGTHS = (10, 20, 50, 100, 200, 500, 1000)
FAMILY = register(copy_family(
    "random_copy", "a uniform random string over a-z", "symbols", LENGTHS, make_random_copy_doc,
    suite=SuiteLengths(quick_teacher_forced=up_to(LENGTHS, 100), published=up_to(LENGTHS, 200),
                       chat=up_to(LENGTHS, 200)),
))
