"""The passkey: exactly L words of filler with no digits, the key once at its recorded depth."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.passkey_recall import HEADER, QUESTION
from copy_tasks.probes.task_docs import generate_docs

PASSKEY = FAMILIES["passkey_recall"]


@settings(max_examples=40, deadline=None)
@given(words=st.one_of(st.integers(1, 60), st.sampled_from(PASSKEY.lengths[:4])), seed=st.integers(0, 2**32 - 1))
def test_the_key_occurs_once_among_exactly_l_words_of_filler_at_its_recorded_depth(words, seed):
    for doc in generate_docs("passkey_recall", words, seed, 3):
        header, text, question = doc["prompt"].split("\n\n")
        assert (header, question) == (HEADER, QUESTION)
        key = doc["target"]
        assert 5 <= len(key) == doc["key_digits"] <= 10 and key[0] != "0"
        assert re.findall(r"\d+", doc["prompt"]) == [key]  # the only number, once
        sentences = re.findall(r"[^.]+\.", text)
        needle = [sentence.strip() for sentence in sentences].index(f"The passkey is the number {key}.")
        assert len(text.split()) - 6 == words  # the key sentence is 6 words
        assert doc["query_depth"] == needle / (len(sentences) - 1) and 0 <= doc["query_depth"] <= 1


def test_depths_spread_over_the_text():
    depths = [doc["query_depth"] for doc in generate_docs("passkey_recall", 500, 1234, 100)]
    assert min(depths) < 0.1 and max(depths) > 0.9 and 0.35 < sum(depths) / len(depths) < 0.65


@pytest.mark.parametrize(("generation", "exact", "prefix"), [
    (" 4563848", 1.0, 1.0), (" 4563848. The old road.", 1.0, 1.0), (f"{QUESTION} 4563848", 1.0, 1.0),
    (" 456", 0.0, 3 / 7), (" 45638480", 0.0, 1.0), (" four", 0.0, 0.0),
])
def test_the_answer_is_the_number_it_starts_with(generation, exact, prefix):
    doc = {"prompt": f"{HEADER}\n\nThe passkey is the number 4563848.\n\n{QUESTION}", "target": "4563848",
           "continuation": " 4563848"}
    assert PASSKEY.score_both_rules(generation, doc) == {"exact_match": exact, "prefix_match": pytest.approx(prefix)}
