"""Recall against memory (`copy_tasks.report.memory_axis`): every model at the bits it keeps at
each length, hand-worked, in the summary and the plots."""

from __future__ import annotations

from leaderboard_fixtures import read_rows, write_results

from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.memory_axis import MemoryPoint, memory_points, recall_bound, recall_points


def row(name, task, metric, value, fixed="", per_token="", architecture="transformer", variant="teacher_forced"):
    family, length = task.replace("_tf", "").rsplit("_", 1)
    return {"name": name, "model": name, "flags": "", "family": family, "variant": variant, "metric": metric,
            "value": value, "stderr": "", "length": length, "task": task, "state_bits": fixed,
            "state_bits_per_token": per_token, "architecture": architecture}


def test_a_transformer_grows_with_its_prompt_and_a_fixed_state_does_not_hand_worked():
    rows = [row("attention", "mqar_tf_64", "query_accuracy", "1.0", "0", "4096"),
            row("attention", "mqar_tf_64", "prompt_tokens_mean", "136"),
            row("attention", "mqar_tf_256", "query_accuracy", "0.9", "0", "4096"),
            row("attention", "mqar_tf_256", "prompt_tokens_mean", "520"),
            row("mamba", "mqar_tf_64", "query_accuracy", "0.3", "311296", "0", "ssm"),
            row("mamba", "mqar_tf_256", "query_accuracy", "0.1", "311296", "0", "ssm"),
            row("old run", "mqar_tf_64", "query_accuracy", "0.5"),  # no memory recorded: not a point
            row("mamba", "mqar_tf_128", "query_accuracy", "0.2")]  # placed by another run of the same model
    points = memory_points(rows)["mqar"]
    assert [(p.series, p.length, p.bits) for p in points] == [
        ("attention", 64, 136 * 4096), ("attention", 256, 520 * 4096), ("mamba", 64, 311296), ("mamba", 128, 311296),
        ("mamba", 256, 311296)]
    assert list(recall_points({"mqar": points})) == [64, 256]


def test_the_bound_is_the_values_a_state_can_hold():
    assert recall_bound(9 * 64, 64) == 1.0 and recall_bound(9 * 16, 64) == 0.25


def test_the_leaderboard_shows_recall_against_memory_in_its_summary_and_plots(tmp_path):
    scores = {"mqar_tf_64": {"query_accuracy": 1.0, "query_accuracy_stderr": 0.0, "exact_match": 1.0,
                             "exact_match_stderr": 0.0}}
    write_results(tmp_path / "in", "attention", scores, task_metadata={"mqar_tf_64": {
        "copy_tasks_state_bits": 0, "copy_tasks_state_bits_per_token": 4096, "copy_tasks_architecture": "transformer",
        "copy_tasks_prompt_tokens_mean": 136}})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert {row["state_bits_per_token"] for row in read_rows(tmp_path / "out")} == {"4096"}
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "## Recall against memory" in summary and "| attention | transformer | teacher_forced | 557,056 | 1.00 |" \
        in summary
    assert (tmp_path / "out" / "plots" / "recall_memory.png").is_file()
    assert (tmp_path / "out" / "plots" / "memory_axis.png").is_file()
    assert MemoryPoint("attention", "transformer", "teacher_forced", 64, 557_056, 1.0) in memory_points(
        read_rows(tmp_path / "out"))["mqar"]
