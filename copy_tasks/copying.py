"""The copy probes: repeat a passage read once. Natural text, shuffled text, random strings,
and random strings with one duplicated n-gram.

Every copy doc has the authors' prompt `{p}\\n\\n{p}\\n\\n{first word}`: the passage, then the
passage again, then its first word, after which the model must write the rest of the passage;
the generation stops at a blank line. Units are words (symbols for the random strings), and a
passage is stored with single spaces between its words.
"""

from __future__ import annotations

import math

import numpy as np

from copy_tasks import names
from copy_tasks.text_sources import draw_passage

LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
DUP_NGRAM_STRING_LENGTH = 64
DUP_NGRAM_ALPHABET_SIZE = 256
MAX_DUPLICATED_NGRAM = (DUP_NGRAM_STRING_LENGTH - 2) // 2  # two copies, one symbol between and after


def copy_doc(words: list[str]) -> dict:
    """The prompt, target and teacher-forced continuation of copying `words`.

    The continuation is the copy itself: how a model ends it (a blank line, a newline, EOS,
    an end-of-turn token) is not scored.

    >>> doc = copy_doc(["the", "cat", "sat"])
    >>> doc["prompt"], doc["target"], doc["continuation"]
    ('the cat sat\\n\\nthe cat sat\\n\\nthe', ' cat sat', ' cat sat')
    """
    passage = " ".join(words)
    target = passage[len(words[0]) :]
    return {
        "prompt": f"{passage}\n\n{passage}\n\n{words[0]}",
        "target": target,
        "continuation": target,
        "words": len(words),
    }


def make_c4_doc(rng: np.random.Generator, length: int, text_source: str) -> dict:
    """A passage of exactly `length` words of natural text from `text_source`.

    >>> from copy_tasks.seeding import doc_rng
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("One two three.\\nFour five six seven.")
    >>> make_c4_doc(doc_rng("c4", "1", 3, 0, 0), 3, str(folder / "a.txt"))["prompt"]
    'two three. Four\\n\\ntwo three. Four\\n\\ntwo'
    """
    words, document = draw_passage(rng, text_source, length)
    return copy_doc(words) | {"document": document}


def make_c4_shuffled_doc(rng: np.random.Generator, length: int, text_source: str) -> dict:
    """The passage of `make_c4_doc` for the same generator, its words in a random order."""
    words, document = draw_passage(rng, text_source, length)
    shuffled = [words[i] for i in rng.permutation(len(words))]
    return copy_doc(shuffled) | {"document": document}


def make_random_copy_doc(rng: np.random.Generator, length: int) -> dict:
    """`length` letters drawn uniformly from a-z, separated by spaces (one token each for
    common tokenizers), with the string's information content in bits.

    >>> from copy_tasks.seeding import doc_rng
    >>> doc = make_random_copy_doc(doc_rng("random_copy", "1", 4, 0, 0), 4)
    >>> doc["prompt"], doc["target"], round(doc["bits"], 2)
    ('m b h w\\n\\nm b h w\\n\\nm', ' b h w', 18.8)
    """
    symbols = [LETTERS[i] for i in rng.integers(len(LETTERS), size=length).tolist()]
    return copy_doc(symbols) | {"alphabet_size": len(LETTERS), "bits": length * math.log2(len(LETTERS))}


def dup_ngram_alphabet() -> tuple[str, ...]:
    """256 distinct common first names (census rank order, alternating sexes): symbols that
    common tokenizers read as about one token each, many enough for a 64-symbol string."""
    male, female = names.first_names("male").names, names.first_names("female").names
    alphabet: dict[str, None] = {}
    for pair in zip(male, female):
        alphabet.update(dict.fromkeys(pair))
        if len(alphabet) >= DUP_NGRAM_ALPHABET_SIZE:
            break
    return tuple(alphabet)[:DUP_NGRAM_ALPHABET_SIZE]


def make_dup_ngram_doc(rng: np.random.Generator, length: int) -> dict:
    """A string of 64 symbols in which exactly one n-gram (n = `length`) occurs twice, with
    different continuations, and nothing else repeats.

    `64 - n` distinct symbols are drawn uniformly without replacement, then a copy of the
    n-gram at `first` is inserted at `second`, with at least one symbol between the two and
    one after the second; all other symbols are distinct, so no other n-gram and no longer
    gram repeats.

    >>> from copy_tasks.seeding import doc_rng
    >>> doc = make_dup_ngram_doc(doc_rng("dup_ngram_copy", "1", 3, 0, 0), 3)
    >>> s = doc["prompt"].split("\\n\\n")[0].split()
    >>> s[doc["first"]:doc["first"] + 3] == s[doc["second"]:doc["second"] + 3], len(s)
    (True, 64)
    """
    n = length
    if not 1 <= n <= MAX_DUPLICATED_NGRAM:
        raise ValueError(f"n={n}: a {DUP_NGRAM_STRING_LENGTH}-symbol string holds a duplicated n-gram "
                         f"with a symbol between and after its copies for n from 1 to {MAX_DUPLICATED_NGRAM}")
    alphabet = dup_ngram_alphabet()
    base = [alphabet[i] for i in rng.choice(len(alphabet), size=DUP_NGRAM_STRING_LENGTH - n, replace=False)]
    first = int(rng.integers(0, DUP_NGRAM_STRING_LENGTH - 2 * n - 1))
    second = int(rng.integers(first + n + 1, DUP_NGRAM_STRING_LENGTH - n))
    symbols = base[:second] + base[first : first + n] + base[second:]
    return copy_doc(symbols) | {"first": first, "second": second, "ngram": n}


def score_copy(generation: str, target: str) -> dict[str, float]:
    """exact_match of the copy and prefix_match, the fraction of target words right before the
    first error. The generation is cut at its first blank line (the authors' stop); whitespace
    runs, newlines included, count as one space.

    >>> score_copy(" cat sat\\n\\nthe cat", " cat sat"), score_copy(" cat", " cat sat")
    ({'exact_match': 1.0, 'prefix_match': 1.0}, {'exact_match': 0.0, 'prefix_match': 0.5})
    """
    produced = generation.split("\n\n", 1)[0].split()
    wanted = target.split()
    right = 0
    for got, want in zip(produced, wanted):
        if got != want:
            break
        right += 1
    return {"exact_match": float(produced == wanted), "prefix_match": right / len(wanted)}
