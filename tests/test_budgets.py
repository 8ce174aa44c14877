"""Generation budgets fit every accepted answer in any segmentation (one byte per token at
worst), never fewer than the authors' 50 tokens."""

from __future__ import annotations

import pytest
from conftest import source_options

from copy_tasks.budgets import MIN_GENERATION_TOKENS, generation_budget
from copy_tasks.docs import generate_docs
from copy_tasks.families import FAMILIES


def test_hand_worked_budgets():
    phone_book = generate_docs("phonebook_copy", 20, 1234, 1)[0]
    assert FAMILIES["phonebook_copy"].generation_budget(phone_book) == 50  # " 6093237777" is 11 bytes
    copy_100 = generate_docs("random_copy", 100, 1234, 1)[0]
    assert FAMILIES["random_copy"].generation_budget(copy_100) == 198  # 99 x " q"
    assert generation_budget([" Denver", " " + "x" * 80]) == 81  # SQuAD: the longest gold answer
    assert generation_budget(["Zürich" * 10]) == 70  # bytes, not characters


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_accepted_answer_fits_one_byte_per_token(family, local_sources):
    spec = FAMILIES[family]
    for length in spec.lengths[:4]:
        for doc in generate_docs(family, length, 1234, 20, source_options(family, local_sources)):
            budget = spec.generation_budget(doc)
            assert budget >= MIN_GENERATION_TOKENS
            assert all(len(answer.encode()) <= budget for answer in spec.answers(doc))
            assert doc["continuation"] in spec.answers(doc)
