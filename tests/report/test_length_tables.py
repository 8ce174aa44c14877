"""The per-length tables (`copy_tasks.report.length_tables`)."""

from __future__ import annotations

from copy_tasks.report.length_tables import length_table_markdown, length_tables
from copy_tasks.report.score_table import TABLES, score_table


def test_a_row_per_model_a_column_per_length_and_the_rows_mean():
    rows = [{"name": "a", "flags": "", "backend": "hf", "architecture": "transformer", "family": "random_copy",
             "variant": "generation", "metric": metric, "value": value, "stderr": "", "length": length}
            for length, metric, value in (("10", "exact_match", "1.0"), ("20", "exact_match", "0.5"),
                                          ("50", "exact_match", "0.0"), ("50", "overflow", "0.5"))]
    (table,) = length_tables(score_table(rows, TABLES[1]))
    assert length_table_markdown(table).splitlines()[2] == "| a | - | 1.00 | 0.50 | cut | 0.75 (10-20) |"
