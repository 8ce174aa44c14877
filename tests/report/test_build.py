"""`copy-tasks leaderboard` (`copy_tasks.report.build`): the outputs written together or not at all,
bad input named, nothing lost."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leaderboard_fixtures import GOOD, JSON, PATHS, good_file, mutated, read_rows, write_results

from copy_tasks.common import files
from copy_tasks.report import build as build_module
from copy_tasks.report.build import build_leaderboard, main
from copy_tasks.report.build import main as leaderboard_main
from copy_tasks.report.table import LeaderboardFileError

SCORES = {"phonebook_copy_20": {"exact_match": 1.0, "exact_match_stderr": 0.0, "overflow": 0.0},
          "random_copy_10": {"exact_match": 0.5, "exact_match_stderr": 0.25}}


@pytest.fixture
def board(tmp_path) -> Path:
    """A leaderboard of one run (3 rows), and its results folder at tmp_path/in."""
    write_results(tmp_path / "in", "gemma", SCORES)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    return tmp_path / "out"


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


# ---- concurrency and kills ------------------------------------------------------------------
def _build_after(barrier, folder: str, out: str) -> None:
    barrier.wait()
    build_leaderboard([Path(folder)], Path(out))


@pytest.fixture
def without_plots(monkeypatch) -> None:
    """Builds (and the forks they run in) that render no plot, for the tests of what the lock and
    the atomic writes keep, which do not depend on plots: rendering them was most of each build
    (0.25 s a build of 400 models without them, 4.5 s with). A build that writes plots atomically
    with the rest is checked by the full-disk and cannot-be-replaced tests."""
    monkeypatch.setattr(build_module, "all_plots", lambda rows: {})


def kill_while_writing(arguments: list[str], folder: Path) -> bool:
    """Run `copy-tasks leaderboard arguments` in a fork, and kill it the moment a temporary file
    of ours appears in `folder` (an atomic write under way), looking every millisecond (a build's
    writes take about 30 ms); True if it was caught writing."""
    process = multiprocessing.get_context("fork").Process(target=leaderboard_main, args=(arguments,))
    process.start()
    while process.is_alive():
        if any(path.name.endswith(".tmp") for path in folder.rglob(".*")):
            os.kill(process.pid, signal.SIGKILL)
            process.join()
            return True
        time.sleep(0.001)
    process.join()
    return False


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), value=JSON,
       name=st.sampled_from(["$x^2$", "![x](http://a.b)<script>", "a|b", "m\\nn", "=1+1", "ok"]))
def test_a_hostile_file_never_drops_a_good_file_or_poisons_later_runs(tmp_path_factory, path, value, name):
    folder, out = tmp_path_factory.mktemp("in"), tmp_path_factory.mktemp("out")
    file = write_results(folder, name, GOOD)
    file.write_text(json.dumps(mutated(json.loads(file.read_text()), path, value)))
    good_file(folder)
    for _ in range(2):  # the second build reads the first one's CSV back
        build_leaderboard([folder], out)
        models = {row["model"] for row in read_rows(out)}
        assert "good-model" in models
    summary = (out / "summary.md").read_text()
    assert "<script>" not in summary and "](http" not in summary


# ---- files and folders ----------------------------------------------------------------------
def test_outputs_follow_the_umask_and_keep_an_existing_files_mode(tmp_path):
    good_file(tmp_path / "in")
    old = os.umask(0o022)
    try:
        build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert stat.S_IMODE((tmp_path / "out" / "leaderboard.csv").stat().st_mode) == 0o644
        assert stat.S_IMODE((tmp_path / "out" / "plots" / "phonebook_copy.png").stat().st_mode) == 0o644
        (tmp_path / "out" / "summary.md").chmod(0o640)
        write_results(tmp_path / "in", "other", GOOD, date="2026-11-05T10:00:00")
        build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert stat.S_IMODE((tmp_path / "out" / "summary.md").stat().st_mode) == 0o640
        assert stat.S_IMODE((tmp_path / "out" / "leaderboard.csv").stat().st_mode) == 0o644
    finally:
        os.umask(old)


@pytest.mark.parametrize("case", ["out is a file", "its parent is a file", "plots is a file"])
def test_an_out_folder_that_cannot_be_is_one_line_and_exit_2(tmp_path, case):
    good_file(tmp_path / "in")
    out = tmp_path / "out"
    if case == "out is a file":
        out.write_text("x")
    elif case == "its parent is a file":
        (tmp_path / "parent").write_text("x")
        out = tmp_path / "parent" / "out"
    else:
        out.mkdir()
        (out / "plots").write_text("x")
    result = run_command(["copy-tasks", "leaderboard", str(tmp_path / "in"), "--out", str(out)], cwd=tmp_path)
    assert result.returncode == 2
    assert "copy-tasks leaderboard: error: --out" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_20_pairs_of_concurrent_builds_lose_no_row_and_keep_summary_and_csv_together(tmp_path, without_plots):
    context = multiprocessing.get_context("fork")
    for pair in range(20):
        out = tmp_path / f"out{pair}"
        folders = [tmp_path / f"in{pair}_{side}" for side in (0, 1)]
        for side, folder in enumerate(folders):
            write_results(folder, f"model-{side}", GOOD, date=f"2026-11-0{side + 1}T10:00:00")
        barrier = context.Barrier(2)
        workers = [context.Process(target=_build_after, args=(barrier, str(folder), str(out))) for folder in folders]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
            assert worker.exitcode == 0
        rows = read_rows(out)
        assert {row["model"] for row in rows} == {"model-0", "model-1"}, pair
        assert len(rows) == 2 * 4  # each file: 4 metrics
        summary = (out / "summary.md").read_text()
        assert "| model-0 |" in summary and "| model-1 |" in summary


@pytest.mark.slow
def test_a_killed_build_leaves_the_old_or_the_new_csv_whole_and_the_next_run_no_temporary_files(tmp_path,
                                                                                               without_plots):
    for index in range(400):
        stamp = f"{index // 60:02d}:{index % 60:02d}"
        write_results(tmp_path / "old", f"model-{index}", GOOD, date=f"2026-11-01T10:{stamp}")
        write_results(tmp_path / "new", f"model-{index}", GOOD, date=f"2026-11-02T10:{stamp}")
    out, whole = tmp_path / "out", tmp_path / "whole"
    build_leaderboard([tmp_path / "old"], out)
    build_leaderboard([tmp_path / "old"], whole)
    build_leaderboard([tmp_path / "new"], whole)
    old, new = (out / "leaderboard.csv").read_bytes(), (whole / "leaderboard.csv").read_bytes()
    arguments = [str(tmp_path / "new"), "--out", str(out)]
    caught = 0
    for _ in range(8):
        caught += kill_while_writing(arguments, out)
        assert (out / "leaderboard.csv").read_bytes() in (old, new)
        if caught:
            break
    assert caught, "no kill landed during a write"
    build_leaderboard([tmp_path / "new"], out)
    assert (out / "leaderboard.csv").read_bytes() == new
    assert not [path for path in out.rglob("*") if path.name.endswith(".tmp")]


GEMMA_SCORES = {
    "phonebook_copy_20": {"exact_match": 0.9, "exact_match_stderr": 0.1},
    "phonebook_copy_tf_50": {"exact_match": 0.5, "exact_match_stderr": 0.25, "bits_per_char": 0.125,
                             "bits_per_char_stderr": 0.0625},
}


@pytest.mark.parametrize("fails_at", [1, 4])  # the CSV's flush, or one after the CSV and plots were staged
def test_a_full_disk_while_writing_leaves_every_output_as_it_was(tmp_path, monkeypatch, fails_at):
    """Finding 17: on a full disk summary.md was written and index.html not (an OSError traceback)."""
    write_results(tmp_path / "a", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "a"], tmp_path / "out")
    before = {path.relative_to(tmp_path / "out"): path.read_bytes()
              for path in (tmp_path / "out").rglob("*") if path.is_file()}
    calls = []

    def full_disk(_fd):
        calls.append(1)
        if len(calls) >= fails_at:
            raise OSError(28, "No space left on device (injected)")

    write_results(tmp_path / "b", "smollm", GEMMA_SCORES, date="2026-11-07T10:00:00")
    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(LeaderboardFileError, match=r"\(No space left on device \(injected\)\); nothing was changed"):
        build_leaderboard([tmp_path / "a", tmp_path / "b"], tmp_path / "out")
    after = {path.relative_to(tmp_path / "out"): path.read_bytes()
             for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert after == before  # the CSV, every plot, summary.md and index.html: all as they were, no temporary


def test_an_output_that_cannot_be_replaced_leaves_every_output_as_it_was(tmp_path, monkeypatch):
    """Issue 45 finding 13: a plot that could not be replaced (`chattr +i`) left the CSV replaced
    (3 rows to 5), summary.md and index.html old and four temporaries, and said "nothing was changed"."""
    write_results(tmp_path / "a", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "a"], tmp_path / "out")
    before = {path.relative_to(tmp_path / "out"): path.read_bytes()
              for path in (tmp_path / "out").rglob("*") if path.is_file()}
    real_replace = os.replace

    def immutable_plots(source, destination):  # what `chattr +i plots/*.png` makes os.replace do
        if str(destination).endswith(".png"):
            raise PermissionError(1, "Operation not permitted")
        real_replace(source, destination)

    write_results(tmp_path / "b", "smollm", GEMMA_SCORES, date="2026-11-07T10:00:00")
    monkeypatch.setattr(files.os, "replace", immutable_plots)
    with pytest.raises(LeaderboardFileError, match=r"plots/phonebook_copy\.png \(Operation not permitted\); nothing "
                       "was changed"):
        build_leaderboard([tmp_path / "a", tmp_path / "b"], tmp_path / "out")
    after = {path.relative_to(tmp_path / "out"): path.read_bytes()
             for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert after == before  # the CSV put back, no temporary left


def test_bad_inputs_are_named_and_nothing_in_the_leaderboard_is_lost(tmp_path, capsys):
    write_results(tmp_path / "good", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "good"], tmp_path / "out")
    before = set((tmp_path / "out" / "leaderboard.csv").read_text().splitlines())

    bad = tmp_path / "bad"
    truncated = write_results(bad, "smollm", GEMMA_SCORES, date="2026-11-02T10:00:00")
    truncated.write_text(truncated.read_text()[:200])
    (bad / "results_not_json.json").write_text("<html>502 Bad Gateway</html>")
    (bad / "results_list.json").write_text("[1, 2, 3]")
    write_results(bad, "gemma", {"arc_easy": {"acc": 0.5}}, date="2026-11-03T10:00:00")
    write_results(bad, "gemma", {"random_copy_10": {"exact_match": 0.5, "exact_match_stderr": "N/A"}},
                  date="2026-11-04T10:00:00")
    with pytest.raises(SystemExit) as exit_info:
        main([str(bad), str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert f"{truncated}: is not valid JSON, perhaps truncated" in err
    assert f"{bad / 'results_not_json.json'}: is not valid JSON" in err
    assert f"{bad / 'results_list.json'}: is not an lm-eval results file" in err
    assert "has no copy-tasks task (its tasks: arc_easy); skipped" in err
    assert 'random_copy_10: exact_match has stderr "N/A"; left empty' in err
    assert f"{tmp_path / 'missing'}: no such file or folder" in err

    after = (tmp_path / "out" / "leaderboard.csv").read_text().splitlines()
    assert before <= set(after)
    (na_row,) = [row for row in read_rows(tmp_path / "out") if row["task"] == "random_copy_10"]
    assert (na_row["value"], na_row["stderr"]) == ("0.5", "")


@pytest.mark.parametrize("source", ["empty", "nothing_here.json", "empty/results_*.json"])
def test_the_leaderboard_refuses_a_source_with_no_results_and_writes_nothing(tmp_path, capsys, source):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(tmp_path / source), "--out", str(tmp_path / "board")])
    assert stop.value.code == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "nothing was written" in error and source.split("/")[0] in error
    assert not (tmp_path / "board").exists()


def test_the_leaderboard_and_the_model_cache_import_without_posix_locks():
    """Their locks are filelock's, so the commands import where `fcntl` does not (Windows)."""
    probe = ("import sys; sys.modules['fcntl'] = None\n"
             "import copy_tasks.report.build, copy_tasks.experiments.real_models\nprint('imported')")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "imported", result.stderr


def test_a_predict_only_run_is_refused_and_nothing_is_written(tmp_path, capsys):
    """Issue 51: the leaderboard over a `--predict_only` run said "0 rows added" and wrote an
    empty board with exit status 0."""
    write_results(tmp_path / "run", "gemma", {"random_copy_10": {"bypass": 999, "bypass_stderr": "N/A"}})
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(tmp_path / "run"), "--out", str(tmp_path / "board")])
    assert stop.value.code == 1
    error = capsys.readouterr().err
    assert "holds predictions only (lm-eval --predict_only): no scores to add" in error
    assert "nothing was written" in error and not (tmp_path / "board").exists()


def test_a_leaderboard_csv_that_is_a_symlink_is_refused_and_left_as_it_is(tmp_path, capsys):
    """Issue 51: a `leaderboard.csv` that is a symbolic link was replaced by a regular file
    without a word; no command overwrites a file behind a link."""
    write_results(tmp_path / "run", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "run"], tmp_path / "board")
    elsewhere = tmp_path / "kept.csv"
    (tmp_path / "board" / "leaderboard.csv").rename(elsewhere)
    (tmp_path / "board" / "leaderboard.csv").symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    with pytest.raises(SystemExit) as stop:
        leaderboard_main([str(tmp_path / "run"), "--out", str(tmp_path / "board")])
    assert stop.value.code == 2
    assert "leaderboard.csv (a symbolic link: only a regular file this command wrote is replaced" in \
        capsys.readouterr().err
    assert (tmp_path / "board" / "leaderboard.csv").is_symlink() and elsewhere.read_bytes() == before


def test_one_run_scored_twice_with_other_values_names_both_files_and_what_to_do(tmp_path, capsys):
    """Issue 51: a folder holding a run and its re-scored copy: the error named both files by
    one basename and advised --replace, which failed with the same message."""
    first = write_results(tmp_path / "runs" / "run", "gemma", GEMMA_SCORES)
    changed = {task: {**metrics, "exact_match": 0.0} for task, metrics in GEMMA_SCORES.items()}
    second = write_results(tmp_path / "runs" / "rescored", "gemma", changed)
    assert first.name == second.name
    for replace in ([], ["--replace"]):
        with pytest.raises(SystemExit) as stop:
            leaderboard_main([str(tmp_path / "runs"), "--out", str(tmp_path / "board"), *replace])
        assert stop.value.code == 2
        error = capsys.readouterr().err
        assert str(first) in error and str(second) in error and "give the leaderboard one of them" in error
        assert "--replace to take" not in error and not (tmp_path / "board").exists()
