"""`dup_ngram_copy`: copy a string in which one n-gram occurs twice with different continuations
(the paper's evidence that Transformers copy by n-gram lookup)."""

from __future__ import annotations

from functools import cache

import numpy as np

from copy_tasks.probes import names
from copy_tasks.probes.copying import copy_doc, copy_family
from copy_tasks.probes.family import SuiteLengths, register

STRING_LENGTH = 64
ALPHABET_SIZE = 256
MAX_DUPLICATED_NGRAM = (STRING_LENGTH - 2) // 2  # two copies, one symbol between and after


@cache
def dup_ngram_alphabet() -> tuple[str, ...]:
    """256 distinct common first names (census rank order, alternating sexes): symbols that
    common tokenizers read as about one token each, many enough for a 64-symbol string."""
    male, female = names.first_names("male").names, names.first_names("female").names
    alphabet: dict[str, None] = {}
    for pair in zip(male, female):
        alphabet.update(dict.fromkeys(pair))
        if len(alphabet) >= ALPHABET_SIZE:
            break
    return tuple(alphabet)[:ALPHABET_SIZE]


def make_dup_ngram_doc(rng: np.random.Generator, length: int) -> dict:
    """A string of 64 symbols in which exactly one n-gram (n = `length`) occurs twice, with
    different continuations, and nothing else repeats.

    `64 - n` distinct symbols are drawn uniformly without replacement, then a copy of the
    n-gram at `first` is inserted at `second`, with at least one symbol between the two and
    one after the second; all other symbols are distinct, so no other n-gram and no longer
    gram repeats.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_dup_ngram_doc(doc_rng("dup_ngram_copy", "1", 3, 0, 0), 3)
    >>> s = doc["prompt"].split("\\n\\n")[0].split()
    >>> s[doc["first"]:doc["first"] + 3] == s[doc["second"]:doc["second"] + 3], len(s)
    (True, 64)
    """
    n = length
    if not 1 <= n <= MAX_DUPLICATED_NGRAM:
        raise ValueError(f"n={n}: a {STRING_LENGTH}-symbol string holds a duplicated n-gram "
                         f"with a symbol between and after its copies for n from 1 to {MAX_DUPLICATED_NGRAM}")
    alphabet = dup_ngram_alphabet()
    base = [alphabet[i] for i in rng.choice(len(alphabet), size=STRING_LENGTH - n, replace=False)]
    first = int(rng.integers(0, STRING_LENGTH - 2 * n - 1))
    second = int(rng.integers(first + n + 1, STRING_LENGTH - n))
    symbols = base[:second] + base[first : first + n] + base[second:]
    return copy_doc(symbols) | {"first": first, "second": second, "ngram": n}


LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8)
FAMILY = register(copy_family(
    "dup_ngram_copy", f"a {STRING_LENGTH}-symbol string with one duplicated n-gram", "n", LENGTHS, make_dup_ngram_doc,
    min_length=1, max_length=(STRING_LENGTH - 2) // 2,  # two copies of the n-gram and a symbol between
    suite=SuiteLengths(quick_teacher_forced=LENGTHS, published=LENGTHS),
))
