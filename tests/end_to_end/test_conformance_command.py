"""End-to-end: the conformance battery through the `lm_eval` command."""

from __future__ import annotations

import json

import pytest
from conformance_battery import (
    expected_verdicts,
    read_verdicts,
)
from conftest import read_results, run_command

import copy_tasks.models.scripted_lm  # noqa: F401  (registers `scripted`)

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


@pytest.mark.parametrize("style, chat", [("end_of_turn", False), ("restated_start", True)])
def test_battery_through_the_lm_eval_command(battery, tmp_path, style, chat):
    result = run_command(
        ["copy-tasks", "run", "--model", "scripted", "--model_args", battery.model_args(style),
         "--tasks", ",".join(battery.tasks), "--metadata", json.dumps(battery.metadata),
         "--output_path", str(tmp_path), *(["--apply_chat_template"] if chat else [])],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = read_results(tmp_path)[0]
    assert read_verdicts(results["results"], battery.tasks) == expected_verdicts(battery, style)
    formats = {results["configs"][task]["metadata"]["copy_tasks_prompt_format"] for task in battery.tasks}
    assert formats == {"chat" if chat else "plain"}
