"""The n-gram copier proves every task answerable, and reproduces the paper's 5-gram curve."""

from __future__ import annotations

import math

import pytest
from conftest import COPY_FAMILIES, source_options

from copy_tasks.models.answers import EPSILON
from copy_tasks.models.ngram_copier import NgramCopier
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs


def verdicts(family: str, docs, **copier) -> list[tuple[float, bool]]:
    """(generation exact match, teacher-forced is_greedy) of the copier on each doc (on every
    question of a doc of several, `mqar`)."""
    spec, out = FAMILIES[family], []
    for doc in docs:
        exact, greedy = [], []
        for question in spec.request_docs(doc):
            model = NgramCopier(question["prompt"], **copier)
            generated = model.generate(list(spec.stop_sequences), spec.generation_budget(question))
            exact.append(spec.score_one_reading(generated, question)["exact_match"])
            greedy.append(model.score(question["continuation"])[1])
        out.append((min(exact), all(greedy)))
    return out


@pytest.mark.parametrize("family", sorted(COPY_FAMILIES))
def test_default_copier_answers_every_doc_of_every_copy_family(family, local_sources):
    spec = FAMILIES[family]
    options = source_options(family, local_sources)
    for length in spec.lengths:
        docs = generate_docs(family, length, 1234, spec.default_docs if length <= 1000 else 5, options)  # passkeys
        assert verdicts(family, docs) == [(1.0, True)] * len(docs), f"{family}_{length}"


def test_five_unit_copier_fails_exactly_from_duplicated_5_grams():
    accuracy = {}
    for n in FAMILIES["dup_ngram_copy"].lengths:
        results = verdicts("dup_ngram_copy", generate_docs("dup_ngram_copy", n, 1234, 200), unit="word", n=5)
        assert all(generated == (1.0 if forced else 0.0) for generated, forced in results)  # paths agree
        accuracy[n] = sum(generated for generated, _ in results) / len(results)
    assert accuracy == {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 0.0, 6: 0.0, 7: 0.0, 8: 0.0}


def test_paper_prefix_format_is_not_a_copy():
    """`$key|string|` does not end with the key: a copier cannot answer it (a trained model can)."""
    options = (("key_length", 4), ("answer_length", 4), ("fmt", "paper"))
    docs = generate_docs("lookup_prefix", 100, 1234, 50, options)
    assert verdicts("lookup_prefix", docs) == [(0.0, False)] * 50
    suffix = generate_docs("lookup_suffix", 100, 1234, 50, options)
    assert verdicts("lookup_suffix", suffix) == [(1.0, True)] * 50


def test_hand_worked_stream_and_smoothing():
    model = NgramCopier("ab1 ab2 xab")
    assert model.generate(["x"], 10) == "1 ab2 "  # longest match "ab": first occurrence
    assert model.score("1 a") == pytest.approx((3 * math.log(1 - EPSILON), True))
    logprob, greedy = model.score("2x")
    assert not greedy and logprob == pytest.approx(math.log(EPSILON / 255) + math.log(1 / 256))
    assert NgramCopier("abc").generate([], 5) == ""  # nothing read before matches "c"


def test_word_units_carry_their_whitespace():
    model = NgramCopier("one two\nthree four\n\none", unit="word")
    assert model.generate(["\n\n"], 10) == " two\nthree four"
