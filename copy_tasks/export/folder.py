"""The export's folder: Parquet files, the card, and a marker naming every file written.

The command never overwrites or deletes a file it did not write, nor writes behind a symbolic
link. It writes into an empty (or new) folder, or into a folder of an earlier export: one whose
marker (`MARKER`) lists every file in it. Anything else there (another file, a link, a marker
that is not a list of the export's own file names) stops the command before it touches a
file. The new export is written whole into a folder beside `out`, then swapped in: a failure
while writing (a full disk) leaves the earlier export as it was.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = (out / "notes.txt").write_text("mine")
    >>> earlier_files(out)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    copy_tasks.probes.options.UserError: --out ... did not write (notes.txt); give an empty or new folder
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from copy_tasks.common.version import __version__
from copy_tasks.probes.options import UserError

MARKER = ".copy-tasks-export.json"


def _error(out: Path, why: str) -> UserError:
    return UserError(f"--out {out} {why}; give an empty or new folder")


def earlier_files(out: Path) -> list[Path]:
    """The files of the earlier export in `out` (none for a new or empty folder); a UserError
    if `out` holds anything else."""
    if out.is_symlink():
        raise _error(out, "is a symbolic link (export writes nothing behind a link)")
    if not out.exists():
        return []
    if not out.is_dir():
        raise _error(out, "is not a folder")
    found, links = [], []
    for folder, subfolders, files in os.walk(out):  # does not follow links
        for name in subfolders + files:
            path = Path(folder) / name
            if path.is_symlink():
                links.append(path)
            elif name in files:
                found.append(path)
    if links:
        raise _error(out.resolve(), f"holds symbolic links ({', '.join(str(p.relative_to(out)) for p in links[:3])}); "
                                    "export writes nothing behind a link")
    found.sort()
    if not found:
        return []
    ours = {out / name for name in listed_files(out)} | {out / MARKER}
    if others := [path for path in found if path not in ours]:
        raise _error(out.resolve(), f"holds files copy-tasks export did not write "
                                    f"({', '.join(str(path.relative_to(out)) for path in others[:3])})")
    return found


def listed_files(out: Path) -> list[str]:
    """The file names the marker in `out` lists: none without a marker; a UserError for a marker
    that is not the JSON an export writes (a list of relative file names inside `out`)."""
    marker = out / MARKER
    if not marker.is_file():
        return []
    try:
        listed = json.loads(marker.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        listed = None
    if not (isinstance(listed, list) and all(isinstance(name, str) and name and not PurePosixPath(name).is_absolute()
                                             and ".." not in PurePosixPath(name).parts for name in listed)):
        raise _error(out.resolve(), f"holds a damaged {MARKER} (its \"files\" must be a list of file names in the "
                                    "folder)")
    return listed


def write_export(out: Path, splits: Sequence, card: str, earlier: Sequence[Path]) -> list[Path]:
    """Replace the `earlier` export in `out` (`earlier_files`) by `splits` (`copy_tasks.export.Split`)
    as Parquet and `card` as README.md, written whole beside `out` and then swapped in; returns
    the files written (under `out`), the marker last."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.export-", dir=out.parent))
    try:
        written = _write_files(staging, splits, card)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.earlier-", dir=out.parent))
        os.rename(out, retired / "export")  # the earlier export (or an empty folder), whole
        os.rename(staging, out)
        shutil.rmtree(retired)  # only files the earlier export wrote (`earlier_files` checked)
    else:
        os.rename(staging, out)
    return [out / path.relative_to(staging) for path in written]


def _write_files(folder: Path, splits: Sequence, card: str) -> list[Path]:
    import pyarrow.parquet as parquet

    os.chmod(folder, 0o777 & ~_umask())
    written = []
    for split in splits:
        path = folder / split.path
        path.parent.mkdir(parents=True, exist_ok=True)
        # datasets' own types (as lm-eval's tasks build them), its features in the schema's metadata
        parquet.write_table(split.dataset.data.table, path)
        written.append(path)
    (folder / "README.md").write_text(card, encoding="utf-8")
    written.append(folder / "README.md")
    files = [str(path.relative_to(folder)) for path in written]
    (folder / MARKER).write_text(json.dumps({"copy_tasks_version": __version__, "files": files}, indent=1) + "\n",
                                 encoding="utf-8")
    return [*written, folder / MARKER]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
