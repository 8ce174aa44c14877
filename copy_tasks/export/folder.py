"""The export's folder: Parquet files, the card, and a marker naming every file written.

The command never overwrites or deletes a file it did not write. It writes into an empty (or
new) folder, or into a folder of an earlier export: one whose marker (`MARKER`) lists every
file in it. That export's files are then replaced by the new one's; anything else there stops
the command before it touches a file.

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
from collections.abc import Sequence
from pathlib import Path

from copy_tasks import __version__
from copy_tasks.probes.options import UserError

MARKER = ".copy-tasks-export.json"


def _error(out: Path, why: str) -> UserError:
    return UserError(f"--out {out} {why}; give an empty or new folder")


def earlier_files(out: Path) -> list[Path]:
    """The files of the earlier export in `out` (none for a new or empty folder); a UserError
    if `out` holds anything else."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise _error(out, "is not a folder")
    found = sorted(path for path in out.rglob("*") if not path.is_dir())
    if not found:
        return []
    try:
        listed = json.loads((out / MARKER).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        listed = []
    ours = {out / name for name in listed} | {out / MARKER}
    if others := [path for path in found if path not in ours]:
        raise _error(out.resolve(), f"holds files copy-tasks export did not write "
                                    f"({', '.join(str(path.relative_to(out)) for path in others[:3])})")
    return found


def remove(files: Sequence[Path], out: Path) -> None:
    """Delete an earlier export's files and the folders that held only them."""
    for path in files:
        path.unlink()
    for folder in sorted({path.parent for path in files}, key=lambda folder: -len(folder.parts)):
        if folder != out and not any(folder.iterdir()):
            folder.rmdir()


def write_export(out: Path, splits: Sequence, card: str, earlier: Sequence[Path]) -> list[Path]:
    """Replace the `earlier` export's files in `out` (`earlier_files`) by `splits`
    (`copy_tasks.export.Split`) as Parquet and `card` as README.md; returns the files written,
    the marker last."""
    import pyarrow.parquet as parquet

    remove(earlier, out)
    written = []
    for split in splits:
        path = out / split.path
        path.parent.mkdir(parents=True, exist_ok=True)
        # datasets' own types (as lm-eval's tasks build them), its features in the schema's metadata
        parquet.write_table(split.dataset.data.table, path)
        written.append(path)
    (out / "README.md").write_text(card, encoding="utf-8")
    written.append(out / "README.md")
    files = [str(path.relative_to(out)) for path in written]
    (out / MARKER).write_text(json.dumps({"copy_tasks_version": __version__, "files": files}, indent=1) + "\n",
                              encoding="utf-8")
    return [*written, out / MARKER]
