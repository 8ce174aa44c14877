"""The order gaps (`copy_tasks.report.order_gaps`): asked first minus asked last, hand-worked."""

from __future__ import annotations

from leaderboard_fixtures import read_rows, write_results

from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.order_gaps import ORDER_PAIRS, order_gap_markdown, order_gaps

PHONEBOOK = ORDER_PAIRS[0]


def row(name: str, family: str, length: int, value: str, metric: str = "exact_match", variant: str = "generation"):
    return {"name": name, "flags": "", "family": family, "variant": variant, "metric": metric, "value": value,
            "stderr": "0.1", "length": str(length)}


def test_the_gap_is_taken_only_where_both_orders_ran_and_nothing_was_cut():
    rows = [row("m", "phonebook_query_first", 10, "0.9"), row("m", "phonebook_copy", 10, "0.4"),
            row("m", "phonebook_query_first", 20, "0.8"), row("m", "phonebook_copy", 20, "0.8"),
            row("m", "phonebook_query_first", 50, "0.5"),  # asked last not run at 50
            row("m", "phonebook_query_first", 100, "0.5"), row("m", "phonebook_copy", 100, "0.1"),
            row("m", "phonebook_copy", 100, "0.25", metric="overflow"),  # cut: left out
            row("m", "phonebook_query_first", 10, "0.0", variant="teacher_forced"),  # another variant
            row("only-last", "phonebook_copy", 10, "1.0")]
    assert order_gaps(rows, PHONEBOOK) == {"m": [(10, 0.5), (20, 0.0)]}


def test_the_summary_table_has_a_cell_per_length_and_the_mean():
    rows = [row("a", "phonebook_query_first", 10, "1.0"), row("a", "phonebook_copy", 10, "0.25"),
            row("a", "phonebook_query_first", 20, "0.5"), row("a", "phonebook_copy", 20, "0.75"),
            row("b", "phonebook_query_first", 20, "0.5"), row("b", "phonebook_copy", 20, "0.5")]
    lines = order_gap_markdown(rows)
    assert "## Asked first or last: phonebook_query_first minus phonebook_copy" in lines
    assert "| model | 10 | 20 | mean |" in lines
    assert "| a | +0.75 | -0.25 | +0.25 |" in lines   # (0.75 - 0.25) / 2
    assert "| b | - | +0.00 | +0.00 |" in lines
    assert not any("lookup_prefix" in line for line in lines)  # no model ran that pair


def test_a_build_puts_the_gap_in_the_summary(tmp_path):
    scores = {"phonebook_query_first_20": {"exact_match": 0.75, "exact_match_stderr": 0.1, "overflow": 0.0},
              "phonebook_copy_20": {"exact_match": 0.25, "exact_match_stderr": 0.1, "overflow": 0.0}}
    write_results(tmp_path / "in", "mamba", scores)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert {row["family"] for row in read_rows(tmp_path / "out")} == {"phonebook_query_first", "phonebook_copy"}
    assert "| mamba | +0.50 | +0.50 |" in (tmp_path / "out" / "summary.md").read_text()


def scores(family: str, value: float) -> dict:
    return {f"{family}_20": {"exact_match": value, "exact_match_stderr": 0.1, "overflow": 0.0}}


def test_runs_on_other_docs_are_not_subtracted_and_the_table_says_so(tmp_path):
    runs = [("m", "phonebook_query_first", 1.0, {"copy_tasks_seed": 7}, 10),  # another seed: other books
            ("m", "phonebook_copy", 0.25, {}, 10),
            ("k", "phonebook_query_first", 1.0, {}, 10), ("k", "phonebook_copy", 0.25, {}, 10),  # the same docs
            ("k", "lookup_prefix", 1.0, {}, 5), ("k", "lookup_suffix", 0.0, {}, 10)]  # 5 docs against 10
    for day, (model, family, value, metadata, n) in enumerate(runs, start=1):
        write_results(tmp_path / "in", model, scores(family, value), date=f"2026-11-0{day}T10:00:00", n=n,
                      task_metadata={f"{family}_20": metadata})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| m | other docs | - |" in summary  # before: +0.75, said to be "on the same docs"
    assert "| k | +0.75 | +0.75 |" in summary and "| k | other docs | - |" in summary
    assert summary.count("`other docs`: the model ran both there, but on other docs") == 2
