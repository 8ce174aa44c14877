"""The start-up hook (`copy_tasks._autoregister`, run by `copy_tasks.pth`): a broken or left-over
install costs one line at most."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

HERE = Path(__file__).resolve().parent


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


PACKAGE_ROOT = ROOT


def test_a_left_over_pth_without_the_package_is_silent(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "copy_tasks.pth").write_text((PACKAGE_ROOT / "packaging" / "copy_tasks.pth").read_text())
    result = subprocess.run([sys.executable, "-S", "-c", f"import site; site.addsitedir({str(site)!r})"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == ""
