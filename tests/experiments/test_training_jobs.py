"""The jobs of a training run (`copy_tasks.experiments.training_jobs`): the costliest first, a
finished one kept."""

from __future__ import annotations

from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.training_jobs import Job, jobs


def test_every_job_of_a_run_the_costliest_first():
    assert jobs(RECIPES["quick"], ("lstm", "mamba2"), ("copy", "mqar")) == [
        Job("mamba2", "copy", 0), Job("mamba2", "mqar", 0), Job("lstm", "copy", 0), Job("lstm", "mqar", 0)]


def test_a_run_in_the_folder_of_an_earlier_one_keeps_what_it_finished(tmp_path):
    from copy_tasks.experiments.training_jobs import train_all

    first = train_all("quick", tmp_path, ("lstm",), report=lambda line: None)
    said: list[str] = []
    final = tmp_path / "copy" / "lstm" / "seed-0" / "final" / "model.safetensors"
    trained_at = final.stat().st_mtime_ns
    (tmp_path / "lookup_suffix" / "lstm" / "seed-0" / "summary.json").unlink()  # as if interrupted there
    again = train_all("quick", tmp_path, ("lstm",), report=said.append)
    assert said[0] == f"2 of 3 models already trained in {tmp_path}: kept"
    assert len(said) == 2 and said[1].startswith("lookup_suffix/lstm/seed 0: final loss ")
    assert final.stat().st_mtime_ns == trained_at  # not trained again
    assert sorted(s["task"] for s in again) == sorted(s["task"] for s in first)


def test_a_kept_model_whose_summary_predates_measured_memory_is_measured_again(tmp_path):
    """A summary written before memory was measured (no `state_bits_per_token`) gets its saved
    model's memory, written back: a report of kept models shows what they keep, as a new run."""
    import json

    from copy_tasks.experiments.training_jobs import SUMMARY, Job, finished, run_job

    job = Job("transformer-rope", "mqar", 0)
    summary = run_job((job, "quick", tmp_path))
    assert summary["state_bits_per_token"] == 2 * 2 * 32 * 32 and summary["state_bits"] is None
    path = job.folder(tmp_path) / SUMMARY
    old = {key: value for key, value in summary.items() if key != "state_bits_per_token"} | {"state_bits": None}
    path.write_text(json.dumps(old))
    assert finished(job, tmp_path, "quick")["state_bits_per_token"] == 2 * 2 * 32 * 32
    assert json.loads(path.read_text())["state_bits_per_token"] == 2 * 2 * 32 * 32
