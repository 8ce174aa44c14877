"""lm-eval's index of its own tasks, kept in copy-tasks' cache between runs, as checked JSON.

Every lm-eval run (each `lm_eval` command, each `TaskManager()`) first indexes its task
folders: lm-eval 0.4.13 parses each of the 14,000 YAML files of its own tasks, about 4 s of
CPU on 2 cores (and 8 s on a busy machine) before anything else happens. That folder changes
only when lm-eval is installed or edited, so the start-up hook's index patch
(`registration.patch_task_index`) keeps its index in `<cache>/lm_eval_index/`
(`copy_tasks.common.files.cache_root`), keyed by lm-eval's version, the folder and the name,
size, modification and change times and inode of every file in it: any edit of a file is a
new key (an edit that keeps size and modification time, `touch -r`, still moves the change
time), indexed anew. Reading the stored index takes under a second. Every other folder (ours,
a user's `--include_path`) is indexed as lm-eval indexes it, after lm-eval's own, later
folders winning as in lm-eval.

The store is plain data, never a pickle: nothing read from the cache folder can run code. A
file holds its key, the entries and their sha256; one of another shape, key or checksum is
passed over and the index is built and written anew. One file is kept per lm-eval folder and
version (two environments sharing a cache keep one each). `COPY_TASKS_INDEX_CACHE=0` (or
`false`, `no`, `off`) switches the store off; a cache that cannot be read or written is passed
over (the index is built as without it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from copy_tasks.common.files import cache_root, write_atomically
from copy_tasks.harness.switches import switched_off

log = logging.getLogger("copy_tasks")
SWITCH = "COPY_TASKS_INDEX_CACHE"
FOLDER = "lm_eval_index"
FORMAT = 1


class BadStore(ValueError):
    """A stored index that is not what this module writes."""


@dataclass(frozen=True)
class Codec:
    """How an index becomes plain JSON data and back; `decode` raises `BadStore` on any other shape."""

    encode: Callable[[dict], list]
    decode: Callable[[list], dict]


def entry_codec(entry_class, kind_class) -> Codec:
    """The codec of lm-eval's index: {name: Entry(name, kind, yaml_path, cfg, tags)}.

    >>> from dataclasses import dataclass, field
    >>> from enum import Enum
    >>> Kind = Enum("Kind", "TASK GROUP")
    >>> @dataclass
    ... class Entry:
    ...     name: str; kind: Kind; yaml_path: Path | None
    ...     cfg: dict | None = None; tags: set = field(default_factory=set)
    >>> codec = entry_codec(Entry, Kind)
    >>> index = {"a": Entry("a", Kind.TASK, Path("/t/a.yaml"), {"task": "a"}, {"x"})}
    >>> codec.decode(codec.encode(index)) == index
    True
    >>> codec.decode([{"name": "a", "kind": "TASK"}])
    Traceback (most recent call last):
    copy_tasks.harness.task_index_cache.BadStore: entry 0 is not an index entry
    """
    fields = ("name", "kind", "yaml_path", "cfg", "tags")

    def encode(index: dict) -> list:
        return [{"name": entry.name, "kind": entry.kind.name,
                 "yaml_path": None if entry.yaml_path is None else str(entry.yaml_path),
                 "cfg": entry.cfg, "tags": sorted(entry.tags)} for entry in index.values()]

    def decode(data: list) -> dict:
        if not isinstance(data, list):
            raise BadStore("the entries are not a list")
        index = {}
        for number, item in enumerate(data):
            if not (isinstance(item, dict) and tuple(item) == fields and isinstance(item["name"], str)
                    and item["kind"] in kind_class.__members__ and isinstance(item["yaml_path"], (str, type(None)))
                    and isinstance(item["cfg"], (dict, type(None))) and isinstance(item["tags"], list)
                    and all(isinstance(tag, str) for tag in item["tags"])):
                raise BadStore(f"entry {number} is not an index entry")
            index[item["name"]] = entry_class(item["name"], kind_class[item["kind"]],
                                              None if item["yaml_path"] is None else Path(item["yaml_path"]),
                                              item["cfg"], set(item["tags"]))
        return index

    return Codec(encode, decode)


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
            digest.update(f"\0{os.path.relpath(folder, root)}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}"
                          f"\0{stat.st_ctime_ns}\0{stat.st_ino}".encode())
    return digest.hexdigest()[:32]


def slot(root: Path, version: str) -> str:
    """The part of a stored file's name that one lm-eval folder and version share."""
    return hashlib.sha256(f"{version}\0{root.resolve()}".encode()).hexdigest()[:16]


def _checksum(entries: list) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_store(path: Path, key: str, codec: Codec) -> dict:
    """The index stored in `path` under `key`; `BadStore` (or OSError) if it is not one."""
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as error:
        raise BadStore(f"not JSON ({error})") from None
    if not (isinstance(data, dict) and set(data) == {"copy_tasks_index", "key", "sha256", "entries"}
            and data["copy_tasks_index"] == FORMAT and data["key"] == key):
        raise BadStore("not a stored index of this key")
    if data["sha256"] != _checksum(data["entries"]):
        raise BadStore("its entries do not match their checksum")
    return codec.decode(data["entries"])


def stored_index(root: Path, version: str, build_one: Callable[[Path], dict], codec: Codec) -> dict:
    """The index of folder `root`: the stored one for its key, else `build_one(root)`, stored
    (unless its plain form would not read back as the same index). Only the newest key's file of
    each folder and version is kept."""
    if switched_off(os.environ.get(SWITCH)):
        return build_one(root)
    store = cache_root() / FOLDER
    key = folder_key(root, version)
    own = slot(root, version)
    path = store / f"{own}-{key}.json"
    try:
        return read_store(path, key, codec)
    except FileNotFoundError:
        pass
    except (BadStore, OSError) as error:  # damaged, foreign or unreadable: built and written anew
        log.debug("copy-tasks: the stored task index %s cannot be used (%s); indexing anew", path, error)
    index = build_one(root)
    entries = codec.encode(index)
    try:
        if codec.decode(json.loads(json.dumps(entries))) != index:
            log.debug("copy-tasks: lm-eval's task index does not survive JSON; not stored")
            return index
        document = {"copy_tasks_index": FORMAT, "key": key, "sha256": _checksum(entries), "entries": entries}
        write_atomically(path, json.dumps(document).encode())
        for older in store.glob(f"{own}-*.json"):
            if older != path:
                older.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError) as error:
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
