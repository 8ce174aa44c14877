"""dup_ngram_copy (`copy_tasks.probes.families.dup_ngram_copy`): exactly one repeated n-gram, no longer repeat."""

from __future__ import annotations

from collections import Counter

import pytest

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.dup_ngram_copy import dup_ngram_alphabet
from copy_tasks.probes.task_docs import generate_docs


def passage(doc: dict) -> list[str]:
    return doc["prompt"].split("\n\n")[0].split(" ")


def repeated_grams(symbols: list[str], n: int) -> dict[tuple, int]:
    counts = Counter(tuple(symbols[i : i + n]) for i in range(len(symbols) - n + 1))
    return {gram: count for gram, count in counts.items() if count > 1}


@pytest.mark.parametrize("n", FAMILIES["dup_ngram_copy"].lengths)
def test_exactly_one_repeated_ngram_and_no_longer_repeat(n):
    alphabet = set(dup_ngram_alphabet())
    assert len(alphabet) == 256
    for doc in generate_docs("dup_ngram_copy", n, 1234, 500):
        symbols = passage(doc)
        assert len(symbols) == 64 and set(symbols) <= alphabet
        repeats = repeated_grams(symbols, n)
        assert list(repeats.values()) == [2]
        assert list(repeats) == [tuple(symbols[doc["first"] : doc["first"] + n])]
        assert symbols[doc["second"] : doc["second"] + n] == symbols[doc["first"] : doc["first"] + n]
        assert symbols[doc["first"] + n] != symbols[doc["second"] + n]  # different continuations
        assert repeated_grams(symbols, n + 1) == {}
