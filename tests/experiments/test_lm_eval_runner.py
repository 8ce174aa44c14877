"""The one launcher of lm-eval (`copy_tasks.experiments.lm_eval_runner`)."""

from __future__ import annotations

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
