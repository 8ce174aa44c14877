"""The start-up hook's import watcher (`copy_tasks.harness.startup`): installed in every interpreter
unless switched off."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(("value", "on"), [("0", False), ("false", False), ("No", False), (" off ", False),
                                           ("1", True), (None, True)])
def test_autoregistration_can_be_switched_off(value, on):
    probe = ("import sys, copy_tasks.harness.startup as hook; "
             "print(any(isinstance(f, hook.PatchWhenImported) for f in sys.meta_path))")
    env = {} if value is None else {"COPY_TASKS_AUTOREGISTER": value}
    result = subprocess.run([sys.executable, "-c", probe], env=env, text=True, capture_output=True, check=True)
    assert result.stdout.strip() == str(on)
