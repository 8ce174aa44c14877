"""One rule's table (`copy_tasks.report.score_table`): a row per model in its setting, a score per
family, the tasks' own flags in the cell."""

from __future__ import annotations

from copy_tasks.report.score_table import TABLES, score_table


def row(name, length, value, flags=""):
    return {"name": name, "flags": flags, "backend": "hf", "architecture": "transformer", "family": "random_copy",
            "variant": "generation", "metric": "exact_match", "value": value, "stderr": "", "length": length}


def test_a_row_per_series_and_a_score_per_family():
    rows = [row("a", "10", "1.0"), row("a", "20", "0.4"), row("b", "10", "0.2", "copy_tasks_copy_format=paper")]
    table = score_table(rows, TABLES[1])
    assert table.families == ["random_copy"] and [entry.entry for entry in table.rows] == ["a", "b"]
    a, b = (entry.scores["random_copy"] for entry in table.rows)
    assert (a.shown_effective, round(a.auc, 2), b.shown_effective, b.task_flags) == (
        "10", 0.7, "<10", "copy_tasks_copy_format=paper")
    assert score_table(rows, TABLES[0]) is None  # no row has the authors' metric
