"""Which line and row a leaderboard row is, and which run is shown (`copy_tasks.report.series`)."""

from __future__ import annotations

from copy_tasks.report.series import latest_runs, series


def row(flags="", backend="hf", date="2026-11-01", run="m@1", family="random_copy", task="random_copy_10"):
    return {"name": "m", "flags": flags, "backend": backend, "family": family, "task": task, "date": date,
            "run": run, "source_file": f"{run}.json"}


def test_a_setting_names_the_run_flags_and_the_newest_run_of_a_task_is_shown():
    assert series(row("limit=5;copy_tasks_copy_format=paper")) == "m [limit=5]"
    kept, notes = latest_runs([row(date="2026-11-01", run="m@1"), row(date="2026-11-02", run="m@2")])
    assert [shown["run"] for shown in kept] == ["m@2"]
    assert notes == ["m (hf): 2 runs of random_copy_10 (in m@1.json, m@2.json); all stay in the CSV, the summary "
                     "and plots use the latest (m@2)"]


def test_two_backends_of_one_model_are_kept_apart():
    kept, _ = latest_runs([row(backend="hf"), row(backend="hf_fast", run="m@2")])
    assert sorted(series(shown) for shown in kept) == ["m [backend=hf]", "m [backend=hf_fast]"]
