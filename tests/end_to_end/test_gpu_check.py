"""The GPU check script runs end to end (on the CPU here, as a smoke run), so it is ready for a
maintainer's GPU."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, offline_env

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end

SCRIPT = ROOT / "benchmarks" / "gpu_check.py"


def test_gpu_check_smoke_run_on_the_cpu(tmp_path):
    """On one thread: a tiny model's operations are too small to share, and two threads on a
    busy machine wait on each other (the same run took 135 s on two threads, 19 s on one)."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--models", "gpt_neox", "--dtypes", "bfloat16",
         "--batch-sizes", "1,4", "--docs", "1"],
        cwd=tmp_path, env=offline_env(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "gpu check passed" in result.stdout
    assert "gpt_neox  hf_fast  bfloat16       4" in result.stdout
