"""lm-eval's index of its own tasks, kept in copy-tasks' cache between runs.

Every lm-eval run (each `lm_eval` command, each `TaskManager()`) first indexes its task
folders: lm-eval 0.4.13 parses each of the 14,000 YAML files of its own tasks, about 4 s of
CPU on 2 cores (and 8 s on a busy machine) before anything else happens. That folder changes
only when lm-eval is installed or edited, so the start-up hook's index patch
(`registration.patch_task_index`) keeps its index in `<cache>/lm_eval_index/`
(`copy_tasks.probes.files.cache_root`), keyed by lm-eval's version, the folder and the name,
size and modification time of every file in it: any change to a file is a new key, indexed
anew. Reading the stored index takes under a second. Every other folder (ours, a user's
`--include_path`) is indexed as lm-eval indexes it, after lm-eval's own, later folders winning
as in lm-eval. `COPY_TASKS_INDEX_CACHE=0` switches the store off; a cache that cannot be read
or written is passed over (the index is built as without it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
from collections.abc import Callable
from pathlib import Path

from copy_tasks.probes.files import cache_root, write_atomically

log = logging.getLogger("copy_tasks")
SWITCH = "COPY_TASKS_INDEX_CACHE"
FOLDER = "lm_eval_index"


def folder_key(root: Path, version: str) -> str:
    """A key that changes with lm-eval's version, the folder, and any file in it.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()); _ = (root / "a.yaml").write_text("task: a")
    >>> before = folder_key(root, "0.4.13")
    >>> before == folder_key(root, "0.4.13"), before == folder_key(root, "0.4.14")
    (True, False)
    >>> _ = (root / "a.yaml").write_text("task: b2"); before == folder_key(root, "0.4.13")
    False
    """
    digest = hashlib.sha256(f"{version}\0{root.resolve()}".encode())
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")  # written as modules load
        for name in sorted(files):
            stat = os.stat(os.path.join(folder, name))
            digest.update(f"\0{os.path.relpath(folder, root)}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:32]


def stored_index(root: Path, version: str, build_one: Callable[[Path], dict]) -> dict:
    """The index of folder `root`: the stored one for its key, else `build_one(root)`, stored.
    Only the newest key's index is kept."""
    if os.environ.get(SWITCH, "1") == "0":
        return build_one(root)
    store = cache_root() / FOLDER
    path = store / f"{folder_key(root, version)}.pickle"
    try:
        with path.open("rb") as stream:
            return pickle.load(stream)
    except FileNotFoundError:
        pass
    except Exception as error:  # a damaged file: built and written anew
        log.debug("copy-tasks: the stored task index %s cannot be read (%s); indexing anew", path, error)
    index = build_one(root)
    try:
        write_atomically(path, pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
        for older in store.glob("*.pickle"):
            if older != path:
                older.unlink(missing_ok=True)
    except OSError as error:
        log.debug("copy-tasks: cannot store lm-eval's task index in %s (%s)", store, error)
    return index


def merged(indexes: list[dict]) -> dict:
    """Folders' indexes in order, a later folder's task replacing an earlier one's of the same
    name, which is logged, as lm-eval's index does.

    >>> merged([{"a": 1, "b": 2}, {"b": 3}])
    {'a': 1, 'b': 3}
    """
    index: dict = {}
    for part in indexes:
        for name, entry in part.items():
            if name in index:
                log.warning("lm-eval task %r of %s replaces the one of %s", name,
                            getattr(entry, "yaml_path", None), getattr(index[name], "yaml_path", None))
            index[name] = entry
    return index
