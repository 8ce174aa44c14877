"""Flip-flop: exactly L instructions, a write first and a bare read last, every read showing the
bit last written, the answer that bit, the mixes in Liu et al.'s proportions; the answer scored
as the digit it starts with."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.flip_flop import HEADER, IGNORE_PROBABILITY
from copy_tasks.probes.options import OptionError
from copy_tasks.probes.task_docs import generate_docs

FLIP_FLOP = FAMILIES["flip_flop"]


def lines_of(doc: dict) -> list[str]:
    header, body = doc["prompt"].split("\n\n")
    assert header == HEADER
    return body.split("\n")


@settings(max_examples=40, deadline=None)
@given(count=st.one_of(st.integers(2, 80), st.sampled_from(FLIP_FLOP.lengths[:3])), seed=st.integers(0, 2**32 - 1),
       mix=st.sampled_from(sorted(IGNORE_PROBABILITY)))
def test_l_instructions_each_read_showing_the_bit_last_written_and_the_answer_that_bit(count, seed, mix):
    for doc in generate_docs("flip_flop", count, seed, 3, (("mix", mix),)):
        lines = lines_of(doc)
        assert len(lines) == count and lines[0][0] == "w" and lines[-1] == "r"
        last, since = None, None
        for line in lines[:-1]:
            letter, bit = line.split(" ")
            assert letter in "wir" and bit in "01"
            if letter == "w":
                last, since = bit, 0
            else:
                since += 1
                if letter == "r":
                    assert bit == last, doc["prompt"]
        assert doc["target"] == last and doc["continuation"] == f" {last}"
        assert doc["since_write"] == since and doc["mix"] == mix


@pytest.mark.parametrize("mix", sorted(IGNORE_PROBABILITY))
def test_the_mixes_ignore_in_liu_et_als_proportions_and_draw_both_answers(mix):
    docs = generate_docs("flip_flop", 1024, 1234, 20, (("mix", mix),))
    letters = [line[0] for doc in docs for line in lines_of(doc)[1:-1]]
    ignored = letters.count("i") / len(letters)
    assert abs(ignored - IGNORE_PROBABILITY[mix]) < 0.02, (mix, ignored)
    assert abs(letters.count("w") - letters.count("r")) < 0.1 * len(letters)
    assert {doc["target"] for doc in docs} == {"0", "1"}


def test_a_mix_it_does_not_know_is_refused_naming_the_allowed():
    with pytest.raises(OptionError, match="'sometimes' is not allowed.*sparse, dense, rare"):
        FLIP_FLOP.options[0].parse("sometimes")


@pytest.mark.parametrize(("generation", "exact"), [
    (" 1", 1.0), (" 1\nw 0", 1.0), ("1", 1.0), (" 1 0", 1.0), ("r 1", 1.0),  # the line restated: read after it
    (" 0", 0.0), (" 10", 0.0), (" one", 0.0), ("", 0.0),
])
def test_the_answer_is_the_digit_it_starts_with(generation, exact):
    doc = {"prompt": f"{HEADER}\n\nw 1\ni 0\nr", "target": "1", "continuation": " 1"}
    assert FLIP_FLOP.score_both_rules(generation, doc)["exact_match"] == exact
