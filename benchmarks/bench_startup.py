"""Start-up cost of the `.pth` hook: `python -c pass` with and without it, side by side.

Two site folders that differ only in the hook: both hold a `.pth` that puts copy-tasks on the
path (named to be read first: `site` reads them in name order), one also holds the installed
`copy_tasks.pth` (editable or regular install alike). Interpreters started with `-S` (no site-packages)
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
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import copy_tasks

HOOK_NAME = "copy_tasks.pth"
PATH_NAME = "00-copy-tasks-path.pth"  # before HOOK_NAME in name order: the package is on the path when the hook runs


def installed_hook() -> str:
    """The text of the `copy_tasks.pth` that pip installed (or, in a checkout not installed, the
    one it would install)."""
    try:
        hook = Path(distribution("copy-tasks").locate_file(HOOK_NAME))
    except PackageNotFoundError:
        hook = Path(copy_tasks.__file__).resolve().parent.parent / "packaging" / HOOK_NAME
    if not hook.is_file():
        raise SystemExit(f"bench_startup: no start-up hook at {hook}: is copy-tasks installed (pip install -e . or .)?")
    return hook.read_text()


def site_folders(root: Path) -> dict[str, Path]:
    package_parent = Path(copy_tasks.__file__).resolve().parent.parent
    folders = {}
    for name in ("without the hook", "with the hook"):
        folder = root / name.replace(" ", "_")
        folder.mkdir()
        (folder / PATH_NAME).write_text(f"{package_parent}\n")
        if name == "with the hook":
            (folder / HOOK_NAME).write_text(installed_hook())
        folders[name] = folder
    return folders


def check_hook_loads(folder: Path) -> None:
    """Stop unless an interpreter started with `folder` really imports the hook (a hook that
    fails to import costs nothing and would be measured as free)."""
    code = (f"import site, sys; site.addsitedir({str(folder)!r}); "
            "sys.exit(0 if 'copy_tasks._autoregister' in sys.modules else 1)")
    environment = {**os.environ, "COPY_TASKS_AUTOREGISTER": "1"}
    if subprocess.run([sys.executable, "-S", "-c", code], env=environment).returncode != 0:
        raise SystemExit(f"bench_startup: the start-up hook in {folder} did not load; nothing to measure")


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
    own = 0
    for line in lines:  # "import time:       321 |        334 |   copy_tasks._autoregister"
        if line.startswith("import time:") and line.count("|") == 2:
            self_us, _, module = line.removeprefix("import time:").split("|")
            if module.strip().split(".")[0] in ("copy_tasks", "__future__") and self_us.strip().isdigit():
                own += int(self_us)
    return own / 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="interpreter starts per configuration")
    args = parser.parse_args(argv)
    folders = site_folders(Path(tempfile.mkdtemp()))
    check_hook_loads(folders["with the hook"])
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
