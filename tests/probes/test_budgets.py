"""Generation budgets fit every accepted answer in any segmentation (one byte per token at
worst), never fewer than the authors' 50 tokens, on a ladder of few values."""

from __future__ import annotations

import pytest
from conftest import source_options

from copy_tasks.probes.budgets import MIN_GENERATION_TOKENS, generation_budget
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs


def test_hand_worked_budgets():
    phone_book = generate_docs("phonebook_copy", 20, 1234, 1)[0]
    assert FAMILIES["phonebook_copy"].generation_budget(phone_book) == 50  # " 6093237777" is 11 bytes
    copy_100 = generate_docs("random_copy", 100, 1234, 1)[0]
    assert FAMILIES["random_copy"].generation_budget(copy_100) == 200  # 99 x " q": 198 bytes, ladder 200
    assert generation_budget([" Denver", " " + "x" * 80]) == 100  # SQuAD: the longest gold answer, 81
    assert generation_budget(["Zürich" * 10]) == 80  # bytes (70), not characters (60)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_accepted_answer_fits_one_byte_per_token(family, local_sources):
    spec = FAMILIES[family]
    for length in spec.lengths[:4]:
        for doc in generate_docs(family, length, 1234, 20, source_options(family, local_sources)):
            budget = spec.generation_budget(doc)
            assert budget >= MIN_GENERATION_TOKENS
            assert all(len(answer.encode()) <= budget for answer in spec.answers(doc))
            assert doc["continuation"] in spec.answers(doc)


def docs_checked(spec, length: int) -> int:
    """100 docs a length, 5 above 1,000 units. A budget is a function of a doc's answers alone, so
    what can spread the budgets of one task is how its answers vary from doc to doc, which 100
    docs show at every length up to 1,000. Only the passkey goes longer (2,000 to 100,000 words
    of filler, its answer a 5- to 10-digit key drawn as at 100 words), where 100 docs a length
    took 20 s to generate."""
    return min(spec.default_docs, 100) if length <= 1000 else 5


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_task_shares_at_most_three_budgets(family, local_sources):
    spec = FAMILIES[family]
    for length in spec.lengths:
        docs = generate_docs(family, length, 1234, docs_checked(spec, length), source_options(family, local_sources))
        assert len({spec.generation_budget(doc) for doc in docs}) <= 3, length
