"""lm-eval's index of its own tasks, stored between runs: the same index, read instead of
parsed, built anew when a file changes, never in the way when the cache is not usable."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from copy_tasks.harness import task_index_cache
from copy_tasks.probes.files import CACHE_ENV


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(task_index_cache.SWITCH, raising=False)
    return tmp_path / "cache" / task_index_cache.FOLDER


@pytest.fixture
def tasks(tmp_path) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "a.yaml").write_text("task: a\n")
    return folder


def counting_build(calls: list):
    def build(root: Path) -> dict:
        calls.append(root)
        return {path.stem: path.read_text() for path in sorted(root.glob("*.yaml"))}
    return build


def test_the_index_is_built_once_then_read_and_built_anew_when_a_file_changes(cache, tasks):
    calls: list = []
    build = counting_build(calls)
    first = task_index_cache.stored_index(tasks, "0.4.13", build)
    assert task_index_cache.stored_index(tasks, "0.4.13", build) == first == {"a": "task: a\n"}
    assert len(calls) == 1 and len(list(cache.glob("*.pickle"))) == 1
    (tasks / "b.yaml").write_text("task: b\n")
    assert task_index_cache.stored_index(tasks, "0.4.13", build) == {"a": "task: a\n", "b": "task: b\n"}
    assert task_index_cache.stored_index(tasks, "0.4.14", build) == {"a": "task: a\n", "b": "task: b\n"}
    assert len(calls) == 3
    assert len(list(cache.glob("*.pickle"))) == 1  # only the newest key's index is kept


def test_a_damaged_store_is_built_anew_and_an_unwritable_cache_is_passed_over(cache, tasks, tmp_path, monkeypatch):
    calls: list = []
    build = counting_build(calls)
    task_index_cache.stored_index(tasks, "v", build)
    stored = next(cache.glob("*.pickle"))
    stored.write_bytes(b"not a pickle")
    assert task_index_cache.stored_index(tasks, "v", build) == {"a": "task: a\n"}
    assert pickle.loads(stored.read_bytes()) == {"a": "task: a\n"} and len(calls) == 2
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(CACHE_ENV, str(blocker))  # the cache "folder" is a file
    assert task_index_cache.stored_index(tasks, "v", build) == {"a": "task: a\n"}
    assert len(calls) == 3 and blocker.read_text() == ""


def test_switched_off_it_neither_reads_nor_writes(cache, tasks, monkeypatch):
    monkeypatch.setenv(task_index_cache.SWITCH, "0")
    calls: list = []
    for _ in range(2):
        task_index_cache.stored_index(tasks, "v", counting_build(calls))
    assert len(calls) == 2 and not cache.exists()


@pytest.mark.slow
def test_lm_evals_task_manager_gets_the_same_index_from_the_store(cache, monkeypatch):
    from lm_eval.tasks import TaskManager

    monkeypatch.setenv(task_index_cache.SWITCH, "0")
    unstored = TaskManager()._index
    monkeypatch.delenv(task_index_cache.SWITCH)
    built_and_stored = TaskManager()._index
    read = TaskManager()._index
    assert len(list(cache.glob("*.pickle"))) == 1
    assert unstored == built_and_stored == read
    assert "phonebook_copy_10" in read and "arc_easy" in read
