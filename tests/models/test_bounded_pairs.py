"""The bounded-state reader of key-value lines: never above B bits, and on `mqar` a query is
answered right exactly when its pair is among the first `capacity(B)` (or a guess hits)."""

from __future__ import annotations

import pytest

from copy_tasks.models.bounded_pairs import PairsReader, capacity, pair_bits, reads_as_pairs
from copy_tasks.models.bounded_state import StateOverflow
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs

MQAR = FAMILIES["mqar"]


def test_a_pair_of_4_letters_and_4_digits_costs_its_symbols_and_two_counters():
    assert pair_bits(4, 4) == pytest.approx(4 * 4.700439718141092 + 4 * 3.321928094887362 + 3 + 3)


@pytest.mark.parametrize("bits", [64, 256, 276, 1024, 4096])
def test_a_query_is_right_exactly_when_its_pair_was_kept(bits):
    kept = capacity(bits, 4, 4)
    for pairs in (8, 64):
        for doc in generate_docs("mqar", pairs, 1234, 40):
            for question, position in zip(MQAR.request_docs(doc), doc["query_positions"]):
                reader = PairsReader(bits).read(question["prompt"])
                assert reader.peak_bits <= bits
                assert len(reader.pairs) == min(kept, pairs)
                right = MQAR.score_one_reading(reader.answer(), question)["exact_match"]
                if position < kept:
                    assert right == 1.0
                else:  # a guess of 4 digits: right with probability 1/10,000 (none in these docs)
                    assert right == 0.0


@pytest.mark.parametrize("pairs", [8, 64, 512])
def test_query_accuracy_is_at_or_under_the_capacity_bound(pairs):
    """At 276 bits (the published B) it keeps 5 pairs: on K pairs at most 5/K of the queries,
    plus what guesses get, and every query right when K <= 5."""
    bits, kept = 276, capacity(276, 4, 4)
    assert kept == 5
    docs = generate_docs("mqar", pairs, 1234, 40)
    scores = []
    for doc in docs:
        answers = [PairsReader(bits).read(question["prompt"]).answer() for question in MQAR.request_docs(doc)]
        scores.append(MQAR.score_generations(answers, doc)["query_accuracy"])
    measured = sum(scores) / len(scores)
    expected = sum(sum(p < kept for p in doc["query_positions"]) for doc in docs) / (len(docs) * 8)
    assert measured == pytest.approx(expected)  # exactly the kept ones: no guess hit
    assert measured <= min(1.0, kept / pairs) + 3 * (kept / pairs / len(docs) / 8) ** 0.5


def test_capacity_grows_with_the_bits_and_the_reader_refuses_too_few():
    # one pair: 6 bits of control (2 of them the choice among four readers), its 1-bit counter,
    # the pair and a line like it (2 x 32.09) and the last value's 3-bit length: 86.18 bits
    assert [capacity(bits, 4, 4) for bits in (86, 87, 256, 1024)] == [0, 1, 5, 25]
    with pytest.raises(ValueError, match="bits=5"):
        PairsReader(5)


def test_a_reader_overrun_is_an_error_not_a_silent_answer():
    reader = PairsReader(20)
    reader.pairs["ab"], reader.kept.stored_bits = "12", pair_bits(2, 2)
    with pytest.raises(StateOverflow):
        reader._measure()


def test_only_prompts_that_open_with_a_pair_line_are_read_as_pairs():
    assert reads_as_pairs(generate_docs("mqar", 8, 1, 1)[0]["prompt"])
    assert not any(reads_as_pairs(generate_docs(family, FAMILIES[family].lengths[0], 1, 1)[0]["prompt"])
                   for family in ("phonebook_copy", "random_copy", "lookup_prefix", "dup_ngram_copy"))
