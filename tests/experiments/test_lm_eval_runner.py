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
