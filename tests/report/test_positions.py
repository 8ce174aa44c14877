"""Accuracy by where the answer sits (`copy_tasks.report.positions`): the phone book's logged
samples split by `query_depth` into thirds, as rows of the leaderboard, a summary table and a
plot, worked by hand on small samples files."""

from __future__ import annotations

import json
import math

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.positions import position_metrics, third_of
from copy_tasks.report.results import samples_file
from copy_tasks.report.rows import rows_from_file

# (query_depth, exact_match, authors_exact_match) of six docs: two in each third
DOCS = ((0.0, 1.0, 1.0), (0.2, 0.0, 0.0), (0.4, 1.0, 0.0), (0.5, 1.0, 1.0), (0.8, 0.0, 0.0), (1.0, 0.0, 0.0))


def write_phone_book_run(folder, model, docs, length=20, date="2026-11-01T10:00:00"):
    task = f"phonebook_copy_{length}"
    mean = sum(ours for _, ours, _ in docs) / len(docs)
    results = write_results(folder, model, {task: {"exact_match": mean, "authors_exact_match": 0.0}}, n=len(docs),
                            date=date)
    lines = [json.dumps({"doc_id": index, "doc": {"query_depth": depth, "length": length},
                         "exact_match": ours, "authors_exact_match": authors})
             for index, (depth, ours, authors) in enumerate(docs)]
    samples_file(results, task).write_text("\n".join(lines) + "\n")
    return results


def test_thirds_are_half_open_and_the_last_holds_the_bottom_of_the_book():
    assert [third_of(depth) for depth in (0.0, 0.3333, 1 / 3, 0.5, 0.6666, 2 / 3, 0.99, 1.0)] == [
        "beginning", "beginning", "middle", "middle", "middle", "end", "end", "end"]


def test_each_thirds_mean_stderr_and_docs_by_hand():
    samples = [{"doc": {"query_depth": depth}, "exact_match": ours} for depth, ours, _ in DOCS]
    found = position_metrics(samples, "exact_match")
    # beginning: 1, 0: mean 0.5, sample sd sqrt(0.5), stderr sqrt(0.5 / 2) = 0.5; middle: 1, 1; end: 0, 0
    assert found == {"beginning": (0.5, 0.5, 2), "middle": (1.0, 0.0, 2), "end": (0.0, 0.0, 2)}


@pytest.mark.parametrize("damage", [{"query_depth": None}, {"query_depth": 1.5}, {"query_depth": "0.5"}, {},
                                    {"query_depth": 10**400}])  # a JSON integer no float holds
def test_docs_without_a_depth_in_0_to_1_are_left_out(damage):
    samples = [{"doc": damage, "exact_match": 1.0}, {"doc": {"query_depth": 0.9}, "exact_match": 1.0},
               {"doc": {"query_depth": 0.1}, "exact_match": math.nan}, "not a sample"]
    assert position_metrics(samples, "exact_match") == {"end": (1.0, 0.0, 1)}


def test_the_rows_of_a_run_with_samples_hold_each_third_with_its_docs(tmp_path):
    rows = {row.metric: row for row in rows_from_file(write_phone_book_run(tmp_path / "in", "m", DOCS))[0]}
    assert {metric: (rows[metric].value, rows[metric].n) for metric in rows if "_" in metric and "exact" in metric
            and metric.rsplit("_", 1)[1] in ("beginning", "middle", "end")} == {
        "exact_match_beginning": (0.5, 2), "exact_match_middle": (1.0, 2), "exact_match_end": (0.0, 2),
        "authors_exact_match_beginning": (0.5, 2), "authors_exact_match_middle": (0.5, 2),
        "authors_exact_match_end": (0.0, 2)}
    assert rows["exact_match"].n == 6 and rows["exact_match_middle"].task == "phonebook_copy_20"


def test_the_summary_pools_the_thirds_over_lengths_and_a_plot_shows_them(tmp_path):
    # at 20 entries the six docs above; at 50, two docs at the end, both right: the end third
    # pools (0 x 2 + 1 x 2) / 4 = 0.5 over 4 docs
    write_phone_book_run(tmp_path / "in", "m", DOCS)
    write_phone_book_run(tmp_path / "in", "m", ((0.9, 1.0, 1.0), (1.0, 1.0, 1.0)), length=50,
                         date="2026-11-01T11:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| m | 20-50 | 0.50 (n=2) | 1.00 (n=2) | 0.50 (n=4) |" in summary
    assert (tmp_path / "out" / "plots" / "phonebook_copy_by_position.png").read_bytes()[:4] == b"\x89PNG"
    assert "phonebook_copy_by_position.png" in (tmp_path / "out" / "index.html").read_text()
