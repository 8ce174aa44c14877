"""The copy families: natural text, shuffled text, random strings, duplicated n-grams."""

from __future__ import annotations

import pytest

from copy_tasks.probes.copying import score_copy


@pytest.mark.parametrize(
    ("generation", "exact", "prefix"),
    [
        (" b c d e\n\nb c d e", 1.0, 1.0),  # stops at the blank line
        (" b c d e", 1.0, 1.0),  # no stop at all
        (" b c d e f g", 1.0, 1.0),  # the copy, then more: how the answer ends is not scored
        (" b c d e\nf", 1.0, 1.0),  # the copy, then a new line
        (" b c d f", 0.0, 0.75),  # a wrong last word
        (" b c d", 0.0, 0.75),  # missing last word
        ("b  c\nd   e ", 1.0, 1.0),  # whitespace differences
        (" b x d e", 0.0, 0.25),  # one wrong word
        (" c d e", 0.0, 0.0),  # skipped the first word
        ("", 0.0, 0.0),  # empty output
        ("\n\n b c d e", 0.0, 0.0),  # blank line first: the copy comes too late
    ],
)
def test_copy_scoring_hand_worked(generation, exact, prefix):
    assert score_copy(generation, " b c d e") == {"exact_match": exact, "prefix_match": prefix}
