"""`random_copy`: copy a uniform random string over a-z, the setting of the paper's Theorem 2.7."""

from __future__ import annotations

import math

import numpy as np

from copy_tasks.probes.copying import COPY_FORMAT, copy_doc, copy_family, paper_copy_doc
from copy_tasks.probes.family import register

LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")


def make_random_copy_doc(rng: np.random.Generator, length: int, fmt: str = "natural") -> dict:
    """`length` letters drawn uniformly from a-z, separated by spaces (one token each for
    common tokenizers), with the string's information content in bits; with `fmt="paper"` the
    same letters in the authors' synthetic format (`$mbhw|`, see `copy_tasks.probes.copying`).

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_random_copy_doc(doc_rng("random_copy", "1", 4, 0, 0), 4)
    >>> doc["prompt"], doc["target"], round(doc["bits"], 2)
    ('m b h w\\n\\nm b h w\\n\\nm', ' b h w', 18.8)
    >>> make_random_copy_doc(doc_rng("random_copy", "1", 4, 0, 0), 4, fmt="paper")["prompt"]
    '$mbhw|'
    """
    symbols = [LETTERS[i] for i in rng.integers(len(LETTERS), size=length).tolist()]
    doc = paper_copy_doc(symbols) if fmt == "paper" else copy_doc(symbols)
    return doc | {"alphabet_size": len(LETTERS), "bits": length * math.log2(len(LETTERS))}


LENGTHS = (10, 20, 50, 100, 200, 500, 1000)
FAMILY = register(copy_family(
    "random_copy", "a uniform random string over a-z", "symbols", LENGTHS, make_random_copy_doc,
    options=(COPY_FORMAT,),
    field_notes=(("alphabet_size", "the number of symbols the string is drawn from (26: a to z)"),
                 ("bits", "the string's information: words x log2(alphabet_size), what a state must hold to copy "
                          "it")),
))
