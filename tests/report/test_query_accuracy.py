"""The summary's table of the fraction of queries answered (`mqar`)."""

from __future__ import annotations

from copy_tasks.report.query_accuracy import query_accuracy_markdown


def row(name, variant, length, metric, value):
    return {"name": name, "flags": "", "family": "mqar", "variant": variant, "metric": metric, "value": value,
            "stderr": "0.1", "length": length}


def test_each_model_and_variant_is_a_row_of_query_accuracy_by_length_and_cut_lengths_are_left_out():
    rows = [row("a", "generation", "8", "query_accuracy", "1.0"),
            row("a", "generation", "16", "query_accuracy", "0.625"),
            row("a", "teacher_forced", "8", "query_accuracy", "0.75"),
            row("b", "generation", "16", "query_accuracy", "0.5"),
            row("b", "generation", "16", "overflow", "0.0"),
            row("a", "generation", "32", "query_accuracy", "0.0"), row("a", "generation", "32", "overflow", "0.5"),
            row("a", "generation", "8", "exact_match", "0.0")]  # not this table's metric
    lines = query_accuracy_markdown(rows)
    assert lines[1] == "## Queries answered: mqar (pairs)"
    assert lines[-5:] == ["| model | variant | 8 | 16 |", "|---|---|---:|---:|",
                          "| a | generation | 1.00 | 0.62 |", "| a | teacher_forced | 0.75 | - |",
                          "| b | generation | - | 0.50 |"]


def test_no_table_without_rows_of_a_family_of_several_questions():
    assert query_accuracy_markdown([{**row("a", "generation", "8", "query_accuracy", "1.0"),
                                     "family": "phonebook_copy"}]) == []
