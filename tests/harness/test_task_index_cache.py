"""lm-eval's index of its own tasks, stored between runs: the same index, read instead of
parsed, built anew when a file changes, never in the way when the cache is not usable."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from copy_tasks.common.files import CACHE_ENV
from copy_tasks.harness import task_index_cache
from copy_tasks.harness.lm_eval_internals import task_index_of


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


def _decode_texts(data):
    if not (isinstance(data, list) and all(isinstance(item, list) and len(item) == 2
                                           and all(isinstance(part, str) for part in item) for item in data)):
        raise task_index_cache.BadStore("not [name, text] pairs")
    return dict(map(tuple, data))


# The fake index of `counting_build`: {name: text}, stored as [name, text] pairs.
TEXTS = task_index_cache.Codec(encode=lambda index: [[name, text] for name, text in index.items()],
                               decode=_decode_texts)


def stored(tasks, version, build):
    return task_index_cache.stored_index(tasks, version, build, TEXTS)


def test_the_index_is_built_once_then_read_and_built_anew_when_a_file_changes(cache, tasks):
    calls: list = []
    build = counting_build(calls)
    first = stored(tasks, "0.4.13", build)
    assert stored(tasks, "0.4.13", build) == first == {"a": "task: a\n"}
    assert len(calls) == 1 and len(list(cache.glob("*.json"))) == 1
    (tasks / "b.yaml").write_text("task: b\n")
    assert stored(tasks, "0.4.13", build) == {"a": "task: a\n", "b": "task: b\n"}
    assert len(calls) == 2 and len(list(cache.glob("*.json"))) == 1  # the folder's older key is gone
    assert stored(tasks, "0.4.14", build) == {"a": "task: a\n", "b": "task: b\n"}
    assert len(calls) == 3


def test_an_edit_that_keeps_size_and_modification_time_is_indexed_anew(cache, tasks):
    """Finding 10: a YAML edited in place with `touch -r` (same size, same mtime) was served stale."""
    calls: list = []
    build = counting_build(calls)
    assert stored(tasks, "v", build) == {"a": "task: a\n"}
    before = (tasks / "a.yaml").stat()
    (tasks / "a.yaml").write_text("task: z\n")  # the same size
    os.utime(tasks / "a.yaml", ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r
    assert (tasks / "a.yaml").stat().st_mtime_ns == before.st_mtime_ns
    assert stored(tasks, "v", build) == {"a": "task: z\n"} and len(calls) == 2


def test_two_environments_sharing_a_cache_keep_an_index_each(cache, tasks, tmp_path):
    """Finding 10: each run deleted the other environment's index, so every run indexed anew."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "c.yaml").write_text("task: c\n")
    calls: list = []
    build = counting_build(calls)
    for _ in range(3):
        assert stored(tasks, "v", build) == {"a": "task: a\n"}
        assert stored(other, "v", build) == {"c": "task: c\n"}
    assert len(calls) == 2 and len(list(cache.glob("*.json"))) == 2


@pytest.mark.parametrize("damage", ["not JSON", "another key", "a list", "an empty index", "entries edited",
                                    "bad entry shape"])
def test_a_damaged_or_foreign_store_is_built_anew(cache, tasks, damage):
    """Finding 9: a valid pickle of a list crashed TaskManager, one of {} silently hid tasks."""
    calls: list = []
    build = counting_build(calls)
    stored(tasks, "v", build)
    path = next(cache.glob("*.json"))
    document = json.loads(path.read_text())
    damaged = {
        "not JSON": b"\x80\x04]\x94.",  # a pickle of a list
        "another key": json.dumps({**document, "key": "0" * 32}).encode(),
        "a list": json.dumps(["a"]).encode(),
        "an empty index": json.dumps({**document, "entries": []}).encode(),
        "entries edited": json.dumps({**document, "entries": [["a", "task: evil\n"]]}).encode(),
        "bad entry shape": json.dumps({**document, "entries": [["a"]], "sha256": task_index_cache._checksum([["a"]])})
        .encode(),
    }[damage]
    path.write_bytes(damaged)
    assert stored(tasks, "v", build) == {"a": "task: a\n"} and len(calls) == 2
    assert json.loads(path.read_text()) == document  # written anew


class RunsCode:
    def __reduce__(self):
        return (os.system, ("touch ran-code",))


def test_no_file_of_the_cache_folder_is_unpickled(cache, tasks, tmp_path, monkeypatch):
    """Finding 9: a pickle with `__reduce__` placed in the cache ran `os.system` at every lm-eval start."""
    monkeypatch.chdir(tmp_path)
    calls: list = []
    stored(tasks, "v", counting_build(calls))
    for path in [*cache.glob("*.json"), cache / "anything.pickle"]:
        path.write_bytes(pickle.dumps(RunsCode()))
    assert stored(tasks, "v", counting_build(calls)) == {"a": "task: a\n"}
    assert not (tmp_path / "ran-code").exists()
    source = Path(task_index_cache.__file__).read_text()
    assert "pickle" not in source.replace("never a pickle", "")  # no code path can unpickle


def test_a_damaged_store_is_passed_over_and_an_unwritable_cache_too(cache, tasks, tmp_path, monkeypatch):
    calls: list = []
    build = counting_build(calls)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(CACHE_ENV, str(blocker))  # the cache "folder" is a file
    assert stored(tasks, "v", build) == {"a": "task: a\n"}
    assert len(calls) == 1 and blocker.read_text() == ""


@pytest.mark.parametrize("value", ["0", "false", "off", "no", " OFF "])
def test_switched_off_it_neither_reads_nor_writes(cache, tasks, monkeypatch, value):
    """Finding 10: `=false`, `off` and `no` did not switch it off (the start-up hook's switch takes them)."""
    monkeypatch.setenv(task_index_cache.SWITCH, value)
    calls: list = []
    for _ in range(2):
        stored(tasks, "v", counting_build(calls))
    assert len(calls) == 2 and not cache.exists()


@pytest.mark.slow
def test_lm_evals_task_manager_gets_the_same_index_from_the_store(cache, monkeypatch):
    """lm-eval parses its own folder (14,000 YAMLs, seconds) once here: with the store on, the
    index is built from that parse of the same files (a TaskManager only reads its index), then
    stored and read back."""
    from lm_eval.tasks import TaskManager

    parses: dict = {}
    stored_index = task_index_cache.stored_index

    def parsed_once(root, version, build_one, codec):
        def build(folder):
            if folder not in parses:
                parses[folder] = build_one(folder)
            return parses[folder]
        return stored_index(root, version, build, codec)

    monkeypatch.setattr(task_index_cache, "stored_index", parsed_once)
    monkeypatch.setenv(task_index_cache.SWITCH, "0")
    unstored = task_index_of(TaskManager())
    monkeypatch.delenv(task_index_cache.SWITCH)
    built_and_stored = task_index_of(TaskManager())
    read = task_index_of(TaskManager())
    assert len(list(cache.glob("*.json"))) == 1
    assert unstored == built_and_stored == read
    assert "phonebook_copy_10" in read and "arc_easy" in read
    assert len(parses) == 1  # lm-eval's folder went through the store's code each time
