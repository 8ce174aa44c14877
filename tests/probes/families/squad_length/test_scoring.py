"""squad_length's scoring (`copy_tasks.probes.families.squad_length.scoring`), on hand-worked cases."""

from __future__ import annotations

import pytest

from copy_tasks.probes.families.squad_length.scoring import f1, normalize, score_squad


@pytest.mark.parametrize(("prediction", "golds", "expected"), [
    ("the Denver Broncos", ["Denver Broncos"], {"exact_match": 1.0, "f1": 1.0}),  # articles dropped
    ("Denver Broncos.", ["Denver Broncos"], {"exact_match": 1.0, "f1": 1.0}),  # punctuation deleted
    ("Broncos", ["Denver Broncos", "Broncos"], {"exact_match": 1.0, "f1": 1.0}),  # best gold wins
    ("Denver", ["Denver Broncos", "Carolina"], {"exact_match": 0.0, "f1": 2 * 1 * 0.5 / 1.5}),
    ("", ["Denver Broncos"], {"exact_match": 0.0, "f1": 0.0}),  # empty prediction
    (" Santa Clara, California\nQuestion: x", ["Santa Clara"],  # first line only; P=2/3, R=1
     {"exact_match": 0.0, "f1": 0.8}),
])
def test_scoring_on_hand_worked_cases(prediction, golds, expected):
    assert score_squad(prediction, golds) == pytest.approx(expected)


def test_normalisation_deletes_punctuation_rather_than_splitting_on_it():
    assert normalize("well-known, the A-Team") == "wellknown ateam"
    assert f1("well known", "well-known") == 0.0
