"""How and where copy-tasks writes files of its own: atomically, with the mode the umask
gives, under a lock on the folder that leaves no file in it (`locked_folder`), and its cache
folder (`$COPY_TASKS_CACHE`, else `~/.cache/copy_tasks`: prepared models, lm-eval's task index).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "a.txt"
    >>> write_atomically(path, "one"); write_atomically(path, "two"); path.read_text()
    'two'
    >>> sorted(item.name for item in path.parent.iterdir())   # no temporary left
    ['a.txt']
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CACHE_ENV = "COPY_TASKS_CACHE"
TEMPORARY_SUFFIX = ".tmp"


def new_file_mode() -> int:
    """The mode a new file gets under the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write a file so that a reader, or a crash, sees the old file or the new one, never half.

    The content goes to a temporary file in the same folder (`.<name>.<random>.tmp`), is
    flushed to disk, gets the mode of the file it replaces (a new file: the umask's), and
    replaces the target with one `os.replace`."""
    write_all_atomically({path: content})


def write_all_atomically(files: dict[Path, str | bytes]) -> None:
    """Write several files so that they change together, all of them or none: every new file
    is written and flushed to a temporary beside its target first; every target that exists is
    then kept under a second name (`_kept`); only then do they replace their targets, one
    `os.replace` each. A failure at any step (a full disk, a target that may not be replaced)
    puts back every target already replaced, removes every temporary and re-raises, naming the
    target; a target that is a folder (IsADirectoryError) or a symbolic link (FileExistsError:
    the link would be replaced by a file) is refused, naming it, before anything is written.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_all_atomically({folder / "a.txt": "a", folder / "b.txt": b"b"})
    >>> sorted(item.name for item in folder.iterdir())
    ['a.txt', 'b.txt']
    """
    for path in files:
        if path.is_symlink():  # replacing it would drop the link, or writing through it change another's file
            raise FileExistsError(17, "a symbolic link: only a regular file this command wrote is replaced; remove "
                                      "the link or write into another folder", str(path))
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory: cannot be replaced by a file", str(path))
    staged: list[tuple[Path, Path]] = []
    kept: dict[Path, Path] = {}  # target -> its old content under a second name
    replaced: list[Path] = []
    try:
        for path, content in files.items():
            staged.append((_named(path, _staged, path, content), path))
        if len(files) > 1:  # one file alone is replaced or not: nothing to put back
            for _, path in staged:
                if path.exists():
                    kept[path] = _named(path, _kept, path)
        for temporary, path in staged:
            _named(path, os.replace, temporary, path)
            replaced.append(path)
    except BaseException:
        for path in reversed(replaced):
            if path in kept:
                os.replace(kept.pop(path), path)
            else:
                path.unlink(missing_ok=True)
        for temporary in [*(temporary for temporary, _ in staged), *kept.values()]:
            temporary.unlink(missing_ok=True)
        raise
    for old in kept.values():
        old.unlink(missing_ok=True)


def _named(path: Path, step, *arguments):
    """`step(*arguments)`, its OSError naming `path` (the target, not a temporary's name)."""
    try:
        return step(*arguments)
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error


def _kept(path: Path) -> Path:
    """A second name for `path`'s content beside it, in the temporaries' pattern: a hard link,
    else (no links on this file system, or not allowed for this user) a copy."""
    second = path.with_name(f".{path.name}.{secrets.token_hex(6)}{TEMPORARY_SUFFIX}")
    try:
        os.link(path, second)
    except OSError:
        shutil.copy2(path, second)
    return second


def _staged(path: Path, content: str | bytes) -> Path:
    """`content` written and flushed to a temporary beside `path`, with the mode `path` has
    (a new file: the umask's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else new_file_mode()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content.encode("utf-8") if isinstance(content, str) else content)
            stream.flush()
            os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


@contextmanager
def locked_folder(folder: Path, fallback_lock_name: str) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (others that lock it wait) and leave nothing in it: the
    folder itself is locked (POSIX `flock` on it). Where a folder cannot be locked (no `fcntl`:
    Windows; a file system that refuses it), filelock's lock file `fallback_lock_name` in the
    folder is locked instead, and stays there.

        >>> folder = Path(tempfile.mkdtemp())
        >>> with locked_folder(folder, ".lock"):
        ...     (folder / "written").write_text("x")
        1
        >>> sorted(item.name for item in folder.iterdir())
        ['written']
    """
    try:
        import fcntl

        handle = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        handle = None
    if handle is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            os.close(handle)
            handle = None
    if handle is None:
        from filelock import FileLock

        with FileLock(folder / fallback_lock_name):
            yield
        return
    try:
        yield
    finally:
        os.close(handle)  # closing the folder's only descriptor of ours releases its lock


def cache_root() -> Path:
    """copy-tasks' cache folder: `$COPY_TASKS_CACHE`, else `~/.cache/copy_tasks`."""
    root = os.environ.get(CACHE_ENV)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "copy_tasks"
