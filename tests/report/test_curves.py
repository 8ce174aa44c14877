"""A model's curve and its numbers (`copy_tasks.report.curves`): effective length and AUC on
hand-worked curves, lengths that overflowed left out of the curve."""

from __future__ import annotations

import pytest

from copy_tasks.report.curves import Score, area_under_curve, curves, effective_length


def test_summary_numbers_on_hand_worked_curves():
    # exact match 1.0, 0.5, 0.25 at 10, 100, 1000: stays >= 50% up to 100; trapezoids over
    # log10 length: (1 + 0.5) / 2 + (0.5 + 0.25) / 2 = 1.125 over a span of 2 decades.
    points = [(10, 1.0), (100, 0.5), (1000, 0.25)]
    assert effective_length(points) == 100
    assert area_under_curve(points) == pytest.approx(0.5625)
    assert effective_length([(20, 0.4), (50, 0.9)]) is None


def test_a_curve_leaves_out_the_lengths_that_overflowed_and_reads_a_missing_stderr_as_0():
    def row(length, metric, value, stderr=""):
        return {"name": "m", "flags": "", "family": "random_copy", "variant": "generation", "length": length,
                "metric": metric, "value": value, "stderr": stderr}

    rows = [row("10", "exact_match", "1.0", "0.1"), row("20", "exact_match", "0.5"), row("50", "exact_match", "0.0"),
            row("50", "overflow", "0.25"), row("20", "overflow", "0.0")]
    assert curves(rows, "random_copy", "generation", "exact_match") == {"m": [(10, 1.0, 0.1), (20, 0.5, 0.0)]}
    assert Score(((10, 1.0), (20, 0.5)), (50,)).shown_effective == "20"
