"""How and where copy-tasks writes files of its own: atomically, with the mode the umask
gives, and its cache folder (`$COPY_TASKS_CACHE`, else `~/.cache/copy_tasks`: prepared models,
lm-eval's task index).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "a.txt"
    >>> write_atomically(path, "one"); write_atomically(path, "two"); path.read_text()
    'two'
    >>> sorted(item.name for item in path.parent.iterdir())   # no temporary left
    ['a.txt']
"""

from __future__ import annotations

import os
import tempfile
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
    """Write several files so that they change together: every new file is written and flushed
    to a temporary beside its target first; only when all are on disk do they replace their
    targets, one `os.replace` each. A failure while writing (a full disk) leaves every target
    as it was, and no temporary; a target that is a folder is refused (IsADirectoryError, naming
    it) before anything is written.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_all_atomically({folder / "a.txt": "a", folder / "b.txt": b"b"})
    >>> sorted(item.name for item in folder.iterdir())
    ['a.txt', 'b.txt']
    """
    for path in files:
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory: cannot be replaced by a file", str(path))
    staged: list[tuple[Path, Path]] = []
    try:
        for path, content in files.items():
            staged.append((_staged(path, content), path))
    except BaseException:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, path in staged:
        os.replace(temporary, path)


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


def cache_root() -> Path:
    """copy-tasks' cache folder: `$COPY_TASKS_CACHE`, else `~/.cache/copy_tasks`."""
    root = os.environ.get(CACHE_ENV)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "copy_tasks"
