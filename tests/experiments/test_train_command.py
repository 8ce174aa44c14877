"""`copy-tasks train` (`copy_tasks.experiments.train_command`): the run folder it owns, resuming,
its report of a damaged run in one line."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from copy_tasks.experiments import train_command
from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.train_command import main as train_main
from copy_tasks.experiments.training_tasks import PAPER_TASKS


def test_a_training_run_refuses_a_folder_it_did_not_make_and_resumes_its_own(tmp_path, capsys):
    from copy_tasks.experiments.train_command import RUN_MARKER, TrainError, claim_run_folder

    def claim(folder):
        return claim_run_folder(folder, "quick", PAPER_TASKS)

    (tmp_path / "mine" / "tasks").mkdir(parents=True)
    (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").write_text("the user's own")
    with pytest.raises(TrainError, match="is not empty and holds no copy-tasks train run"):
        claim(tmp_path / "mine")
    assert (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").read_text() == "the user's own"
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(TrainError, match="is a file"):
        claim(tmp_path / "a-file")
    assert claim(tmp_path / "run") == tmp_path / "run" / "training.json"  # a new folder: ours
    (first,) = json.loads((tmp_path / "run" / RUN_MARKER).read_text())["runs"]
    (tmp_path / "run" / "copy" / "lstm" / "seed-0").mkdir(parents=True)
    (tmp_path / "run" / "copy" / "lstm" / "seed-0" / "log.jsonl").write_text('{"step": 1}\n')
    time.sleep(1.1)
    claim(tmp_path / "run")  # ours: said, and what it finished kept
    second = json.loads((tmp_path / "run" / RUN_MARKER).read_text())["runs"][-1]
    error = capsys.readouterr().err
    assert f"holds an earlier run (started {first})" in error and "keeps the models it finished" in error
    assert (tmp_path / "run" / "copy" / "lstm" / "seed-0" / "log.jsonl").read_text() == '{"step": 1}\n'
    assert json.loads((tmp_path / "run" / RUN_MARKER).read_text())["runs"] == [first, second]


def test_links_to_checkpoints_are_relative_and_relinking_a_moved_run_works(tmp_path):
    from copy_tasks.experiments.lm_eval_runner import link_models

    run = tmp_path / "run"
    (run / "mamba2" / "examples-32").mkdir(parents=True)
    link_models(run / "by_name", {"trained-mamba2": run / "mamba2" / "examples-32"})
    assert os.readlink(run / "by_name" / "trained-mamba2") == "../mamba2/examples-32"
    import shutil

    shutil.copytree(run, tmp_path / "copy", symlinks=True)
    assert (tmp_path / "copy" / "by_name" / "trained-mamba2").resolve() == tmp_path / "copy" / "mamba2" / "examples-32"
    run.rename(moved := tmp_path / "moved")
    link_models(moved / "by_name", {"trained-mamba2": moved / "mamba2" / "examples-32"})  # no FileExistsError
    assert (moved / "by_name" / "trained-mamba2").resolve() == moved / "mamba2" / "examples-32"


@pytest.mark.parametrize("damage", ["no record", "corrupt record", "no results", "empty results folder"])
def test_report_only_on_a_damaged_run_is_one_line(tmp_path, capsys, damage):
    run = tmp_path / "run"
    (run / "results" / "trained-mamba2").mkdir(parents=True)
    if damage != "no record":
        record = {"recipe": "quick", "architectures": ["mamba2"],
                  "models": [{"task": "copy", "architecture": "mamba2"}]}
        (run / "training.json").write_text("{not json" if damage == "corrupt record" else json.dumps(record))
    if damage == "no results":
        (run / "results" / "trained-mamba2").rmdir()
        (run / "results").rmdir()
    with pytest.raises(SystemExit) as stop:
        train_main(["--out", str(run), "--report-only"])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith("copy-tasks train: error: --report-only: ")
    assert error.count("\n") == 1 and "Traceback" not in error


@pytest.mark.parametrize("tasks", ["bogus", "copy,bogus", ","])
def test_an_unknown_task_is_refused_before_anything_is_trained(tmp_path, capsys, tasks):
    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(tmp_path / "run"), "--quick", "--tasks", tasks])
    assert stopped.value.code == 2
    assert "--tasks: unknown" in capsys.readouterr().err and not (tmp_path / "run").exists()


@pytest.mark.parametrize("tasks", ["copy", "lookup_prefix,lookup_suffix", "copy,mqar"])
def test_some_of_the_papers_tasks_without_the_others_are_refused(tmp_path, capsys, tasks):
    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(tmp_path / "run"), "--quick", "--tasks", tasks])
    assert stopped.value.code == 2
    assert "are trained together or not at all" in capsys.readouterr().err and not (tmp_path / "run").exists()


@pytest.mark.parametrize(("recipe", "tasks", "others"), [
    ("full", "mqar", "mqar or quick"), ("mqar", "copy,lookup_prefix,lookup_suffix", "full or gpu or quick")])
def test_a_task_the_recipe_does_not_train_is_refused_naming_the_recipes_that_do(tmp_path, capsys, recipe, tasks,
                                                                                 others):
    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(tmp_path / "run"), "--recipe", recipe, "--tasks", tasks])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and not (tmp_path / "run").exists()
    assert f"--tasks {tasks}: recipe {recipe} trains " in error and f"; use --recipe {others}" in error


def test_without_models_or_tasks_a_run_trains_its_recipes_own(tmp_path, no_training, monkeypatch):
    asked = []
    monkeypatch.setattr(train_command, "run", lambda *arguments: asked.append(arguments[2:5:2]))
    train_main(["--out", str(tmp_path / "grid"), "--recipe", "mqar"])
    train_main(["--out", str(tmp_path / "paper"), "--recipe", "full"])
    assert asked == [(tuple(RECIPES["mqar"].architectures), ("mqar",)),
                     (tuple(RECIPES["full"].architectures), tuple(PAPER_TASKS))]


def model_summary(task: str, recipe: str = "quick") -> dict:
    """What a finished model's summary.json holds (as `training.run_job` writes it)."""
    return {"architecture": "lstm", "task": task, "seed": 0, "parameters": 1000, "final_loss": 1.5, "seconds": 1.0,
            "examples": 20, "checkpoints": {"3": 12, "6": 20}, "state_bits": 4096, "recipe": recipe}


@pytest.fixture
def no_training(monkeypatch):
    """`copy-tasks train` with its training and lm-eval runs replaced: every model of the run
    "finished" (its summary and final/ written), every evaluation "scored" (an empty results
    folder, read as no scores)."""

    def train_all(recipe_name, out, architectures, report, tasks, workers=None):
        summaries = [model_summary(task, recipe_name) for task in tasks]
        for summary in summaries:
            folder = out / summary["task"] / "lstm" / "seed-0"
            (folder / "final").mkdir(parents=True, exist_ok=True)
            (folder / "final" / "model.safetensors").write_text(f"weights of {recipe_name}")
            (folder / "summary.json").write_text(json.dumps(summary))
        return summaries

    def score_all(recipe, out, runs, report, workers=None):
        for run in runs:
            (out / "results" / run.label).mkdir(parents=True, exist_ok=True)
        return {run.label: {} for run in runs}

    monkeypatch.setattr(train_command, "train_all", train_all)
    monkeypatch.setattr(train_command, "score_all", score_all)
    monkeypatch.setattr(train_command, "run_scores", lambda folder: {})


def never_train(*arguments, **keywords):
    raise AssertionError("trained: the run should have been refused first")


def snapshot(folder):
    return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_a_run_of_another_recipe_is_refused_before_it_overwrites_the_models(tmp_path, capsys, no_training,
                                                                             monkeypatch):
    """Issue 45 finding 11: `--quick` into a finished `full` folder replaced its final models and
    training.json, with one line on stderr."""
    run = tmp_path / "run"
    train_main(["--out", str(run), "--recipe", "full", "--models", "lstm"])
    before = snapshot(run)
    assert before[Path("copy/lstm/seed-0/final/model.safetensors")] == b"weights of full"
    capsys.readouterr()
    monkeypatch.setattr(train_command, "train_all", never_train)
    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(run), "--quick", "--models", "lstm"])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1
    assert error.startswith(f"copy-tasks train: error: --out {run} holds a run of recipe full (")
    assert "recipe quick would overwrite its models" in error
    assert snapshot(run) == before


def test_two_task_sets_in_one_folder_keep_both_reports(tmp_path, no_training):
    """Issue 45 finding 12: the paper's tasks after `--tasks mqar` replaced mqar's training.json
    and experiments.md, and its report could no longer be rebuilt."""
    run = tmp_path / "run"
    train_main(["--out", str(run), "--quick", "--models", "lstm", "--tasks", "mqar"])
    train_main(["--out", str(run), "--quick", "--models", "lstm"])
    records = {path.name: json.loads(path.read_text())["tasks"] for path in run.glob("training*.json")}
    assert records == {"training_mqar.json": ["mqar"], "training.json": list(PAPER_TASKS)}
    reports = {name: (run / name).read_text() for name in ("experiments_mqar.md", "experiments.md")}
    assert reports["experiments_mqar.md"].startswith("## Trained from scratch: multi-query associative recall")
    assert reports["experiments.md"].startswith("## Trained from scratch: the paper's synthetic experiments")
    for name in reports:
        (run / name).unlink()
    train_main(["--out", str(run), "--report-only"])  # both rebuilt, from their own records
    assert {name: (run / name).read_text() for name in reports} == reports


def test_a_folder_written_before_task_sets_had_their_own_records_is_read_as_it_is(tmp_path, capsys, no_training,
                                                                                  monkeypatch):
    run = tmp_path / "run"
    train_main(["--out", str(run), "--quick", "--models", "lstm", "--tasks", "mqar"])
    (run / "training_mqar.json").rename(run / "training.json")  # the names before: one record, whatever its tasks
    (run / "experiments_mqar.md").rename(run / "experiments.md")
    report = (run / "experiments.md").read_text()
    (run / "experiments.md").unlink()
    train_main(["--out", str(run), "--report-only"])
    train_main(["--out", str(run), "--quick", "--models", "lstm", "--tasks", "mqar"])  # resumed into its record
    assert (run / "experiments.md").read_text() == report and not (run / "training_mqar.json").exists()
    before = snapshot(run)
    capsys.readouterr()
    monkeypatch.setattr(train_command, "train_all", never_train)
    with pytest.raises(SystemExit) as stopped:  # the paper's record would take training.json's name
        train_main(["--out", str(run), "--quick", "--models", "lstm"])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1
    assert f"--out {run} holds the run of tasks mqar (training.json); a run of tasks copy," in error
    assert snapshot(run) == before


@pytest.mark.parametrize("command", [["--report-only"], ["--quick", "--models", "lstm", "--tasks", "mqar"]])
def test_a_leaderboard_that_is_a_file_is_refused_before_anything_is_written(tmp_path, capsys, no_training,
                                                                            monkeypatch, command):
    """Issue 45 finding 17: `--report-only --leaderboard FILE` rewrote the report, then raised
    NotADirectoryError."""
    run, board = tmp_path / "run", tmp_path / "board.csv"
    train_main(["--out", str(run), "--quick", "--models", "lstm", "--tasks", "mqar"])
    board.write_text("not a folder")
    before = snapshot(run)
    capsys.readouterr()
    monkeypatch.setattr(train_command, "train_all", never_train)
    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(run), "--leaderboard", str(board), *command])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1
    assert error.startswith(f"copy-tasks train: error: --leaderboard {board}: {board} is a file; ")
    assert snapshot(run) == before and board.read_text() == "not a folder"
