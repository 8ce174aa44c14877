"""The one launcher of lm-eval (`copy_tasks.experiments.lm_eval_runner`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


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


def test_a_log_that_is_a_symbolic_link_is_refused_before_lm_eval_runs(tmp_path):
    from copy_tasks.experiments.lm_eval_runner import LmEvalFailed, LmEvalRun, launch

    theirs = tmp_path / "theirs.txt"
    theirs.write_text("a file someone else wrote")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "x.log").symlink_to(theirs)
    with pytest.raises(LmEvalFailed, match="is a symbolic link"):
        launch(LmEvalRun("ngram_copier", ("random_copy_10",), tmp_path / "out"), cwd=tmp_path,
               log=tmp_path / "logs" / "x.log")
    assert theirs.read_text() == "a file someone else wrote" and not (tmp_path / "out").exists()


# A child that writes lm-eval-like request bars to stderr (tqdm's form in a file), one every 0.1 s, then waits.
BARS = ("import sys, time; bar = '\\rRunning loglikelihood requests: {}0%|#| {}/10 [00:0{}<00:{:02d}, 1.00it/s]'; "
        "[(sys.stderr.write(bar.format(d, d, d, 10 - d)), sys.stderr.flush(), time.sleep(0.1)) for d in range(6)]; "
        "time.sleep(1)")


def test_a_logged_run_shows_progress_lines_and_its_log_starts_with_a_command_that_runs_from_anywhere(
        tmp_path, monkeypatch, capsys):
    """Issue 41 finding 7: the main job printed nothing for minutes, and its logs named the model
    `pretrained=gemma-3-270m`, a name that resolves only in the folder the child ran in."""
    import shlex
    import sys

    from copy_tasks.experiments.lm_eval_runner import LmEvalRun, launch

    child = [sys.executable, "-c", BARS]
    monkeypatch.setattr(LmEvalRun, "command", lambda self: child)
    (tmp_path / "by_name").mkdir()
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "logs" / "x.log"
    launch(LmEvalRun("hf_fast", ("random_copy_10",), tmp_path / "out"), cwd=Path("by_name"), log=log,
           progress="[1/3] fake", interval=0.2)
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("[1/3] fake: ") for line in lines)
    assert re.fullmatch(r"\[1/3\] fake: loglikelihood requests 5/10, \d+ s elapsed, about 5 s more for these",
                        lines[-1]), lines
    first, rest = log.read_text().split("\n", 1)
    assert first == f"# cd {tmp_path / 'by_name'} && TOKENIZERS_PARALLELISM=false {shlex.join(child)}"
    assert "Running loglikelihood requests: 50%" in rest
