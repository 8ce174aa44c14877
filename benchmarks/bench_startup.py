"""Start-up cost of the `.pth` hook: `python -c pass` with and without it, side by side.

Two site folders that differ only in the hook: both hold a `.pth` that puts copy-tasks on the
path, one also holds `copy_tasks.pth`. Interpreters started with `-S` (no site-packages)
add one of the folders with `site.addsitedir`; runs alternate between the three settings
(no hook, the hook, the hook switched off with COPY_TASKS_AUTOREGISTER=0) so that noise hits
all alike. Prints the median and the spread of each, the hook's added wall time, and the
import time of its modules as `python -X importtime` reports it (the sum of their own times).
Run with `python benchmarks/run.py` (all benchmarks) or this file alone.
"""

from __future__ import annotations

import argparse
import os
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


def start_ms(folder: Path, off: bool = False) -> float:
    command = [sys.executable, "-S", "-c", f"import site; site.addsitedir({str(folder)!r})"]
    environment = {**os.environ, "COPY_TASKS_AUTOREGISTER": "0" if off else "1"}
    start = time.perf_counter()
    subprocess.run(command, check=True, env=environment)
    return (time.perf_counter() - start) * 1000


def hook_import_ms(folder: Path, off: bool = False) -> float:
    """The hook's modules' own import times, summed, as `-X importtime` reports them."""
    command = [sys.executable, "-S", "-X", "importtime", "-c", f"import site; site.addsitedir({str(folder)!r})"]
    environment = {**os.environ, "COPY_TASKS_AUTOREGISTER": "0" if off else "1"}
    lines = subprocess.run(command, check=True, env=environment, capture_output=True, text=True).stderr.splitlines()
    own = [int(line.split("|")[0].split(":")[1]) for line in lines if "copy_tasks" in line or "__future__" in line]
    return sum(own) / 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="interpreter starts per configuration")
    args = parser.parse_args(argv)
    folders = site_folders(Path(tempfile.mkdtemp()))
    settings = {"without the hook": (folders["without the hook"], False),
                "with the hook": (folders["with the hook"], False),
                "switched off": (folders["with the hook"], True)}
    times: dict[str, list[float]] = {name: [] for name in settings}
    imports: dict[str, list[float]] = {name: [] for name in settings}
    for _ in range(args.runs):
        for name, (folder, off) in settings.items():
            times[name].append(start_ms(folder, off))
            imports[name].append(hook_import_ms(folder, off))
    print(f"## Start-up cost of the .pth hook ({args.runs} interleaved starts each)")
    for name, values in times.items():
        low, _, high = statistics.quantiles(values, n=4)
        print(f"{name:<18} median {statistics.median(values):6.1f} ms  (quartiles {low:.1f}-{high:.1f}); "
              f"its modules' import time {statistics.median(imports[name]):.2f} ms")
    for name in ("with the hook", "switched off"):
        added = statistics.median(times[name]) - statistics.median(times["without the hook"])
        print(f"added, {name}: {added:.2f} ms of wall time per interpreter (target: under 2 ms)")


if __name__ == "__main__":
    main()
