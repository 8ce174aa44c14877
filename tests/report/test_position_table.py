"""Accuracy by where the answer sits (`copy_tasks.report.position_table`)."""

from __future__ import annotations

from copy_tasks.report.position_table import position_markdown


def test_the_thirds_pooled_over_the_lengths_run():
    rows = [{"name": "m", "flags": "", "family": "phonebook_copy", "variant": "generation", "metric": metric,
             "value": value, "n": n, "length": length}
            for metric, value, n, length in (("exact_match_beginning", "1.0", "2", "10"),
                                             ("exact_match_middle", "0.0", "3", "10"),
                                             ("exact_match_middle", "1.0", "1", "20"))]
    assert position_markdown(rows)[-1] == "| m | 10-20 | 1.00 (n=2) | 0.25 (n=4) | - |"
