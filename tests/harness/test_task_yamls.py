"""The generated task YAMLs (`copy_tasks.harness.task_yamls`) are what the family table makes."""

from __future__ import annotations

from copy_tasks.harness.registration import task_config_dir
from copy_tasks.harness.task_yamls import stale_files


def test_generated_yamls_are_up_to_date():
    assert stale_files(task_config_dir()) == []
