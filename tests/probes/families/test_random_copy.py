"""random_copy (`copy_tasks.probes.families.random_copy`): strings over the alphabet, of the promised length."""

from __future__ import annotations

import pytest

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.random_copy import LETTERS
from copy_tasks.probes.task_docs import generate_docs


def passage(doc: dict) -> list[str]:
    return doc["prompt"].split("\n\n")[0].split(" ")


@pytest.mark.parametrize("length", FAMILIES["random_copy"].lengths)
def test_random_strings_use_the_alphabet_and_have_the_length(length):
    docs = generate_docs("random_copy", length, 1234, 200)
    for doc in docs:
        symbols = passage(doc)
        assert len(symbols) == length and set(symbols) <= set(LETTERS)
        assert doc["bits"] == pytest.approx(length * 4.7004397)
    if length >= 100:  # uniform: every letter shows up
        assert set(passage(docs[0])) == set(LETTERS)
