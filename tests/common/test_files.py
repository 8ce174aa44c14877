"""Atomic writes and the cache folder (`copy_tasks.common.files`): text is written as UTF-8,
a new file gets the umask's mode and a replaced one keeps its own, the temporary lies beside
its target and never outlives a write, several files are all on disk before any replaces its
target, a failure while writing leaves every target as it was, a folder's lock keeps a second
holder waiting and leaves no file behind, and the cache folder follows `$COPY_TASKS_CACHE`."""

from __future__ import annotations

import errno
import multiprocessing
import os
import sys
from pathlib import Path

import pytest

from copy_tasks.common import files
from copy_tasks.common.files import (
    CACHE_ENV,
    cache_root,
    locked_folder,
    new_file_mode,
    write_all_atomically,
    write_atomically,
)


@pytest.fixture
def umask_027():
    """The process's umask set to 027 (group may read, others nothing) for one test."""
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def mode_of(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_text_is_written_as_utf8_and_bytes_as_given(tmp_path):
    write_atomically(tmp_path / "text.txt", "café\n")
    write_atomically(tmp_path / "raw.bin", b"\x00\xff\xfe")
    assert (tmp_path / "text.txt").read_bytes() == b"caf\xc3\xa9\n"
    assert (tmp_path / "raw.bin").read_bytes() == b"\x00\xff\xfe"


def test_missing_parent_folders_are_made(tmp_path):
    target = tmp_path / "models" / "tiny" / "config.json"
    write_atomically(target, "{}")
    assert target.read_text() == "{}"


def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path, umask_027):
    assert new_file_mode() == 0o640  # 666 less 027
    write_atomically(tmp_path / "new.txt", "x")
    assert mode_of(tmp_path / "new.txt") == 0o640


def test_a_replaced_file_keeps_its_own_mode(tmp_path, umask_027):
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    write_atomically(target, "new")
    assert target.read_text() == "new"
    assert mode_of(target) == 0o751


def test_a_reader_of_the_old_file_still_reads_all_of_it(tmp_path):
    target = tmp_path / "index.json"
    target.write_text("old content")
    with target.open() as reader:
        write_atomically(target, "new content")
        assert reader.read() == "old content"  # the old file was replaced, not overwritten
    assert target.read_text() == "new content"


def test_the_temporary_lies_beside_its_target_and_is_named_after_it(tmp_path, monkeypatch):
    replaced = []
    real_replace = os.replace

    def recording_replace(source, destination):
        replaced.append((Path(source), Path(destination)))
        real_replace(source, destination)

    monkeypatch.setattr(files.os, "replace", recording_replace)
    target = tmp_path / "a.txt"
    write_atomically(target, "one")
    [(temporary, destination)] = replaced
    assert destination == target
    assert temporary.parent == target.parent
    assert temporary.name.startswith(".a.txt.") and temporary.name.endswith(".tmp")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.txt"]


def two_old_files(folder: Path) -> tuple[Path, Path]:
    """a.txt and b.txt in `folder`, holding "old a" and "old b"."""
    first, second = folder / "a.txt", folder / "b.txt"
    first.write_text("old a")
    second.write_text("old b")
    return first, second


def test_several_files_are_all_on_disk_before_any_replaces_its_target(tmp_path, monkeypatch):
    first, second = two_old_files(tmp_path)
    seen_at_each_replace = []
    real_replace = os.replace

    def watching_replace(source, destination):
        temporaries = sorted(item.name.split(".")[1] for item in tmp_path.glob(".*.tmp"))
        seen_at_each_replace.append((temporaries, first.read_text(), second.read_text()))
        real_replace(source, destination)

    monkeypatch.setattr(files.os, "replace", watching_replace)
    write_all_atomically({first: "new a", second: "new b"})
    # both staged and both old files kept under a second name, neither replaced yet
    assert seen_at_each_replace[0] == (["a", "a", "b", "b"], "old a", "old b")
    assert (first.read_text(), second.read_text()) == ("new a", "new b")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_a_full_disk_while_writing_leaves_every_target_as_it_was_and_no_temporary(tmp_path, monkeypatch):
    first, second = two_old_files(tmp_path)
    flushes = []
    real_fsync = os.fsync

    def fsync_failing_on_the_second_file(descriptor):
        flushes.append(descriptor)
        if len(flushes) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(descriptor)

    monkeypatch.setattr(files.os, "fsync", fsync_failing_on_the_second_file)
    with pytest.raises(OSError, match="No space left on device"):
        write_all_atomically({first: "new a", second: "new b", tmp_path / "c.txt": "new c"})
    assert (first.read_text(), second.read_text()) == ("old a", "old b")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.txt", "b.txt"]  # no temporary, no c.txt


def test_the_cache_folder_is_the_environment_variable_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "my-cache"))
    assert cache_root() == tmp_path / "my-cache"


@pytest.mark.parametrize("setting", [None, ""], ids=["unset", "empty"])
def test_the_cache_folder_is_under_the_home_folder_otherwise(tmp_path, monkeypatch, setting):
    monkeypatch.setenv("HOME", str(tmp_path))
    if setting is None:
        monkeypatch.delenv(CACHE_ENV, raising=False)
    else:
        monkeypatch.setenv(CACHE_ENV, setting)
    assert cache_root() == tmp_path / ".cache" / "copy_tasks"


def test_a_cache_folder_under_the_home_folder_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(CACHE_ENV, "~/models-cache")
    assert cache_root() == tmp_path / "models-cache"


def test_a_target_that_is_a_folder_is_refused_before_any_file_changes(tmp_path):
    first = tmp_path / "a.txt"
    first.write_text("old a")
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError) as refused:
        write_all_atomically({first: "new a", tmp_path / "d": "new d"})
    assert refused.value.filename == str(tmp_path / "d")
    assert first.read_text() == "old a" and sorted(item.name for item in tmp_path.iterdir()) == ["a.txt", "d"]


def test_a_target_that_cannot_be_replaced_puts_back_the_ones_already_replaced(tmp_path, monkeypatch):
    first, second = two_old_files(tmp_path)
    real_replace = os.replace

    def second_immutable(source, destination):
        if Path(destination) == second:
            raise PermissionError(1, "Operation not permitted")
        real_replace(source, destination)

    monkeypatch.setattr(files.os, "replace", second_immutable)
    with pytest.raises(PermissionError) as refused:
        write_all_atomically({first: "new a", second: "new b", tmp_path / "c.txt": "new c"})
    assert refused.value.filename == str(second)  # the target, not a temporary
    assert (first.read_text(), second.read_text()) == ("old a", "old b")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.txt", "b.txt"]  # no temporary, no c.txt


def _write_when_locked(folder: str, name: str, start) -> None:
    start.wait()
    with locked_folder(Path(folder), ".lock"):
        (Path(folder) / name).write_text("in")


@pytest.mark.parametrize("lock", ["the folder", "the fallback file"])
def test_a_locked_folder_keeps_a_second_holder_waiting_and_the_folder_lock_leaves_no_file(tmp_path, monkeypatch,
                                                                                          lock):
    """Issue 44 finding 10: the leaderboard's lock left an empty `.leaderboard.lock` in its folder.
    Where the folder cannot be locked (no `fcntl`, as on Windows), filelock's file is the lock.
    The other process is forked before the lock is taken (a fork shares the locks held)."""
    if lock == "the fallback file":
        monkeypatch.setitem(sys.modules, "fcntl", None)
    context = multiprocessing.get_context("fork")
    start = context.Event()
    other = context.Process(target=_write_when_locked, args=(str(tmp_path), "second", start))
    other.start()
    with locked_folder(tmp_path, ".lock"):
        start.set()
        other.join(0.5)
        assert other.is_alive() and not (tmp_path / "second").exists()  # it waits for the lock
    other.join(10)
    assert other.exitcode == 0
    left = sorted(path.name for path in tmp_path.iterdir())
    assert left == (["second"] if lock == "the folder" else [".lock", "second"])
