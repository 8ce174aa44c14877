"""What the leaderboard takes as a number (`copy_tasks.report.numbers`): one rule, the same for its
three readers as each read before (issue 43 finding 7: four parsers with different rules)."""

from __future__ import annotations

import math

import pytest

from copy_tasks.report.numbers import LARGEST_VALUE, cell_length, cell_number, finite_number

# (value, as a results file's value (rows), as a samples file's (positions), as a CSV cell (summary))
CASES = [
    (0.25, 0.25, 0.25, 0.25),
    (3, 3.0, 3.0, 3.0),
    ("0.25", None, None, 0.25),
    (" 7 ", None, None, 7.0),
    ("N/A", None, None, None),
    ("", None, None, None),
    (None, None, None, None),
    (True, None, None, None),
    (float("nan"), None, None, None),
    ("nan", None, None, None),
    (float("-inf"), None, None, None),
    ("1e400", None, None, None),
    (10**400, None, None, None),
    (2e9, None, 2e9, None),
    ("2e9", None, None, None),
    (-LARGEST_VALUE, -LARGEST_VALUE, -LARGEST_VALUE, -LARGEST_VALUE),
    ([1], None, None, None),
]


@pytest.mark.parametrize(("value", "results", "samples", "cell"), CASES)
def test_one_rule_for_a_results_value_a_samples_value_and_a_csv_cell(value, results, samples, cell):
    assert finite_number(value) == results
    assert finite_number(value, largest=math.inf) == samples
    assert cell_number(value) == cell


def test_a_length_cell_is_a_whole_number_from_1():
    assert [cell_length(text) for text in ("10", "10.0", "0", "2.5", "-3", "x")] == [10, 10, None, None, None, None]
