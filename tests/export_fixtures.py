"""An export made by `copy-tasks export` in its own process, and an in-process export, for the
export tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TESTS, run_command

from copy_tasks import cli

PINNED = json.loads((TESTS / "docs_fingerprints.json").read_text())  # 5 docs per task


FAMILIES = ("phonebook_copy", "random_copy")


LENGTHS = (10, 20)


ARGS = [",".join(FAMILIES), "--lengths", ",".join(map(str, LENGTHS)), "--docs", "5"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """Both families at two lengths, 5 docs each, written by the command in its own process."""
    out = tmp_path_factory.mktemp("export") / "docs"
    result = run_command(["copy-tasks", "export", *ARGS, "--out", str(out)], cwd=out.parent)
    assert result.returncode == 0, result.stderr
    assert "datasets.load_dataset" in result.stdout
    return out


def export(args: list[str], capsys) -> tuple[int, str]:
    """Run `copy-tasks export ARGS` in this process: (exit status, stderr)."""
    try:
        cli.main(["export", *args])
    except SystemExit as exit:
        return exit.code, capsys.readouterr().err
    return 0, capsys.readouterr().err
