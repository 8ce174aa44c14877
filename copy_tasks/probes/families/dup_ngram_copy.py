"""`dup_ngram_copy`: copy a string in which one n-gram occurs twice with different continuations
(the paper's evidence that Transformers copy by n-gram lookup)."""

from __future__ import annotations

from functools import cache

import numpy as np

from copy_tasks.probes import names
from copy_tasks.probes.copying import COPY_FORMAT, copy_doc, copy_family, paper_copy_doc
from copy_tasks.probes.family import register

STRING_LENGTH = 64
ALPHABET_SIZE = 256
MAX_DUPLICATED_NGRAM = (STRING_LENGTH - 2) // 2  # two copies, one symbol between and after
# The authors' synthetic format: letters, so that models trained on it (`copy-tasks train`)
# read them; 20 letters (within the copy lengths those models are trained on) all distinct
# but for the duplicated n-gram.
PAPER_LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
PAPER_STRING_LENGTH = 20


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


def make_dup_ngram_doc(rng: np.random.Generator, length: int, fmt: str = "natural") -> dict:
    """A string of 64 symbols in which exactly one n-gram (n = `length`) occurs twice, with
    different continuations, and nothing else repeats; with `fmt="paper"`, a string of 20
    letters built the same way, in the authors' synthetic format (`$<letters>|`).

    `64 - n` (or `20 - n`) distinct symbols are drawn uniformly without replacement, then a copy of the
    n-gram at `first` is inserted at `second`, with at least one symbol between the two and
    one after the second; all other symbols are distinct, so no other n-gram and no longer
    gram repeats.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_dup_ngram_doc(doc_rng("dup_ngram_copy", "1", 3, 0, 0), 3)
    >>> s = doc["prompt"].split("\\n\\n")[0].split()
    >>> s[doc["first"]:doc["first"] + 3] == s[doc["second"]:doc["second"] + 3], len(s)
    (True, 64)
    >>> doc = make_dup_ngram_doc(doc_rng("dup_ngram_copy", "1", 3, 0, 0), 3, fmt="paper")
    >>> s = doc["target"]
    >>> s[doc["first"]:doc["first"] + 3] == s[doc["second"]:doc["second"] + 3], len(s), doc["prompt"] == f"${s}|"
    (True, 20, True)
    """
    n = length
    alphabet, string_length = (PAPER_LETTERS, PAPER_STRING_LENGTH) if fmt == "paper" else \
        (dup_ngram_alphabet(), STRING_LENGTH)
    longest = (string_length - 2) // 2
    if not 1 <= n <= longest:
        raise ValueError(f"n={n}: a {string_length}-symbol string holds a duplicated n-gram "
                         f"with a symbol between and after its copies for n from 1 to {longest}")
    base = [alphabet[i] for i in rng.choice(len(alphabet), size=string_length - n, replace=False)]
    first = int(rng.integers(0, string_length - 2 * n - 1))
    second = int(rng.integers(first + n + 1, string_length - n))
    symbols = base[:second] + base[first : first + n] + base[second:]
    doc = paper_copy_doc(symbols) if fmt == "paper" else copy_doc(symbols)
    return doc | {"first": first, "second": second, "ngram": n}


LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8)
FAMILY = register(copy_family(
    "dup_ngram_copy", f"a {STRING_LENGTH}-symbol string with one duplicated n-gram", "n", LENGTHS, make_dup_ngram_doc,
    min_length=1, max_length=(STRING_LENGTH - 2) // 2,  # two copies of the n-gram and a symbol between
    options=(COPY_FORMAT,),
    field_notes=(("first", "where the duplicated n-gram first starts in the string (0-based, in symbols)"),
                 ("second", "where its second occurrence starts"),
                 ("ngram", "n: the duplicated n-gram's length in symbols")),
))
