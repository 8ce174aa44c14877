"""c4_copy_shuffled (`copy_tasks.probes.families.c4_copy_shuffled`): each passage a permutation of c4_copy's."""

from __future__ import annotations

from collections import Counter

import pytest
from text_corpus import passage, source

from copy_tasks.probes.task_docs import generate_docs


@pytest.mark.parametrize("length", [25, 200, 1000])
def test_shuffled_passages_are_permutations_of_the_originals(corpus, length):
    originals = generate_docs("c4_copy", length, 1234, 30, source(corpus))
    shuffled = generate_docs("c4_copy_shuffled", length, 1234, 30, source(corpus))
    moved = 0
    for original, mixed in zip(originals, shuffled):
        assert Counter(passage(original)) == Counter(passage(mixed))
        assert original["document"] == mixed["document"]
        moved += passage(original) != passage(mixed)
    assert moved == 30
