"""`copy-tasks train` (`copy_tasks.experiments.train_command`): the run folder it owns, resuming,
its report of a damaged run in one line."""

from __future__ import annotations

import json
import os
import time

import pytest


def test_a_training_run_refuses_a_folder_it_did_not_make_and_resumes_its_own(tmp_path, capsys):
    from copy_tasks.experiments.train_command import RUN_MARKER, TrainError, claim_run_folder

    (tmp_path / "mine" / "tasks").mkdir(parents=True)
    (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").write_text("the user's own")
    with pytest.raises(TrainError, match="is not empty and holds no copy-tasks train run"):
        claim_run_folder(tmp_path / "mine")
    assert (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").read_text() == "the user's own"
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(TrainError, match="is a file"):
        claim_run_folder(tmp_path / "a-file")
    first = claim_run_folder(tmp_path / "run")  # a new folder: ours
    (tmp_path / "run" / "copy" / "lstm" / "seed-0").mkdir(parents=True)
    (tmp_path / "run" / "copy" / "lstm" / "seed-0" / "log.jsonl").write_text('{"step": 1}\n')
    time.sleep(1.1)
    second = claim_run_folder(tmp_path / "run")  # ours: said, and what it finished kept
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
    from copy_tasks.experiments.train_command import main as train_main

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
    from copy_tasks.experiments.train_command import main as train_main

    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(tmp_path / "run"), "--quick", "--tasks", tasks])
    assert stopped.value.code == 2
    assert "--tasks: unknown" in capsys.readouterr().err and not (tmp_path / "run").exists()


@pytest.mark.parametrize("tasks", ["copy", "lookup_prefix,lookup_suffix", "copy,mqar"])
def test_some_of_the_papers_tasks_without_the_others_are_refused(tmp_path, capsys, tasks):
    from copy_tasks.experiments.train_command import main as train_main

    with pytest.raises(SystemExit) as stopped:
        train_main(["--out", str(tmp_path / "run"), "--quick", "--tasks", tasks])
    assert stopped.value.code == 2
    assert "are trained together or not at all" in capsys.readouterr().err and not (tmp_path / "run").exists()
