"""How the reference models answer lm-eval's requests (`copy_tasks.models.answers`): the stated
smoothing rule of `score_against`, worked out by hand on short answers (1 - EPSILON per agreeing
character, EPSILON / 255 for the first that disagrees, 1/256 for each after it), greedy exactly
for a prefix of the answer, a distribution that sums to one over every byte string of a length,
and `cut_at_stops` being the public scorer's own."""

from __future__ import annotations

import itertools
import math

import pytest

from copy_tasks.models import answers
from copy_tasks.models.answers import score_against
from copy_tasks.probes import public_scorer

AGREES = math.log(0.99)  # 1 - EPSILON
FIRST_DISAGREES = math.log(0.01 / 255)  # EPSILON shared by the 255 other byte values
LOST = math.log(1 / 256)  # after a disagreement: uniform over the bytes


@pytest.mark.parametrize("continuation, expected", [
    ("", (0.0, True)),
    ("a", (AGREES, True)),
    ("ab", (2 * AGREES, True)),
    ("abc", (3 * AGREES, True)),
])
def test_a_prefix_of_the_answer_is_greedy_at_one_minus_epsilon_per_character(continuation, expected):
    logprob, greedy = score_against("abc", continuation)
    assert (logprob, greedy) == (pytest.approx(expected[0]), expected[1])


@pytest.mark.parametrize("answer, continuation, expected_logprob", [
    ("abc", "x", FIRST_DISAGREES),  # the first character already disagrees
    ("abc", "abx", 2 * AGREES + FIRST_DISAGREES),
    ("abc", "axyz", AGREES + FIRST_DISAGREES + 2 * LOST),  # lost after "a": y and z at 1/256
    ("abc", "abca", 3 * AGREES + FIRST_DISAGREES),  # the answer has ended: its next character disagrees
    ("", "hi", FIRST_DISAGREES + LOST),  # an empty answer agrees with nothing
    ("abc", "xbc", FIRST_DISAGREES + 2 * LOST),  # agreeing again after being lost earns nothing
])
def test_a_continuation_that_leaves_the_answer_is_not_greedy_and_scored_by_the_rule(answer, continuation,
                                                                                   expected_logprob):
    logprob, greedy = score_against(answer, continuation)
    assert not greedy
    assert logprob == pytest.approx(expected_logprob)


def test_probabilities_of_all_two_byte_continuations_within_the_answer_sum_to_one():
    """Within the answer's length each position is a distribution over the 256 byte values:
    0.99 + 255 x 0.01/255 = 1 while the model follows its answer, 256 x 1/256 = 1 once it is lost."""
    byte_values = [chr(value) for value in range(256)]
    for answer in ("ab", "abc"):
        total = sum(math.exp(score_against(answer, first + second)[0])
                    for first, second in itertools.product(byte_values, repeat=2))
        assert total == pytest.approx(1.0), answer


def test_the_greedy_continuation_is_the_most_likely_of_its_length():
    best = max((chr(value) + "c" for value in range(256)), key=lambda text: score_against("bc", text)[0])
    assert best == "bc"


def test_cut_at_stops_is_the_public_scorers_own():
    """The models cut generations with the very function the public scorer documents."""
    assert answers.cut_at_stops is public_scorer.cut_at_stops
