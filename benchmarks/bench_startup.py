"""Start-up cost of the `.pth` hook: `python -c pass` with and without it, side by side.

Two site folders that differ only in the hook: both hold a `.pth` that puts copy-tasks on the
path, one also holds `copy_tasks.pth`. Interpreters started with `-S` (no site-packages)
add one of the folders with `site.addsitedir`; runs alternate between the two so that noise
hits both alike. Prints the median and the spread of each and the hook's added cost in ms.
Run with `python benchmarks/run.py` (all benchmarks) or this file alone.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import copy_tasks

HOOK = Path(copy_tasks.__file__).resolve().parent.parent / "packaging" / "copy_tasks.pth"


def site_folders(root: Path) -> dict[str, Path]:
    package_parent = Path(copy_tasks.__file__).resolve().parent.parent
    hook = HOOK.read_text() if HOOK.is_file() else "import copy_tasks._autoregister\n"
    folders = {}
    for name in ("without the hook", "with the hook"):
        folder = root / name.replace(" ", "_")
        folder.mkdir()
        (folder / "path.pth").write_text(f"{package_parent}\n")
        if name == "with the hook":
            (folder / "copy_tasks.pth").write_text(hook)
        folders[name] = folder
    return folders


def start_ms(folder: Path) -> float:
    command = [sys.executable, "-S", "-c", f"import site; site.addsitedir({str(folder)!r})"]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="interpreter starts per configuration")
    args = parser.parse_args(argv)
    folders = site_folders(Path(tempfile.mkdtemp()))
    times: dict[str, list[float]] = {name: [] for name in folders}
    for _ in range(args.runs):
        for name, folder in folders.items():
            times[name].append(start_ms(folder))
    print(f"## Start-up cost of the .pth hook ({args.runs} interleaved starts each)")
    for name, values in times.items():
        low, _, high = statistics.quantiles(values, n=4)
        print(f"{name:<18} median {statistics.median(values):6.1f} ms  (quartiles {low:.1f}-{high:.1f})")
    added = statistics.median(times["with the hook"]) - statistics.median(times["without the hook"])
    print(f"added by the hook: {added:.2f} ms per interpreter (target: under 2 ms)")


if __name__ == "__main__":
    main()
