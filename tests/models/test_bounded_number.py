"""The bounded-state number reader: the passkey at every length with at most 128 bits."""

from __future__ import annotations

import pytest

from copy_tasks.models.bounded_number import PasskeyReader, reads_as_passkey
from copy_tasks.models.reference_lm import BoundedStateLM
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs

PASSKEY = FAMILIES["passkey_recall"]


@pytest.mark.parametrize("words", PASSKEY.lengths)
def test_128_bits_find_the_passkey_at_every_length(words):
    for doc in generate_docs("passkey_recall", words, 1234, 3 if words > 10_000 else 20):
        reader = PasskeyReader(128).read(doc["prompt"])
        assert reader.peak_bits <= 128
        assert PASSKEY.score_one_reading(reader.answer(), doc)["exact_match"] == 1.0
        assert BoundedStateLM(bits=128)._answer(doc["prompt"]) == doc["continuation"]


def test_a_key_that_does_not_fit_is_dropped_not_kept_in_part():
    # 10 digits need 33.2 bits and a 4-bit counter, beside 3 bits of control (2 of them the
    # choice among four readers) and the other register's 1-bit counter: 41.2 bits
    assert PasskeyReader(42).read("is 1234567890. x").kept == "1234567890"
    assert PasskeyReader(41).read("is 1234567890. x").kept == ""


def test_only_passkey_prompts_are_read_as_such():
    assert reads_as_passkey(generate_docs("passkey_recall", 100, 1, 1)[0]["prompt"])
    assert not any(reads_as_passkey(generate_docs(family, FAMILIES[family].lengths[0], 1, 1)[0]["prompt"])
                   for family in ("phonebook_copy", "mqar", "random_copy", "lookup_suffix"))
