"""The main job's peak memory, all its processes together, its wall time and its silences.

Runs `copy-tasks suite --out <temporary>` (the README's main job) with its model already
prepared (prepared first if it is not, outside the measurement) and samples, every 0.5 s, the
resident set of the job's process and of every process below it (the lm-eval children), summed.
Prints, per version of copy-tasks measured: the wall time, each step's seconds as the job reports
them, the peak of the sum and the largest single process at that moment, and the longest the
console stayed silent while a step ran (issue 41: progress at least every 30 s).

With `--before REF` the same job of an earlier commit (`git archive REF`, run from its source
folder on `PYTHONPATH`, in this environment) runs first, then this checkout's, one after
another in one run, so both see the same machine:

    python benchmarks/bench_main_job.py                  # this checkout
    python benchmarks/bench_main_job.py --before main    # an earlier commit, then this checkout

The figure's condition is the machine: run it on otherwise idle cores. Summed resident sets
count a page two processes share twice (the model's weights are not shared: each process
loads its own copy), so the sum is an upper bound of what the job holds.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import psutil
from background_sampler import BackgroundSampler

ROOT = Path(__file__).resolve().parent.parent
STEP_START = re.compile(r"^\[(\d+)/(\d+)\] (\S+): \d+ tasks")
STEP_DONE = re.compile(r"^\[(\d+)/(\d+)\] (\S+): done in (\d+) s")
SAMPLE_SECONDS = 0.5


class TreeMemory(BackgroundSampler):
    """The highest summed resident set of a process and its descendants, sampled in a thread,
    and the largest single process (its command, shortened) at that moment."""

    def __init__(self, pid: int) -> None:
        super().__init__(interval=SAMPLE_SECONDS)
        self.pid = pid
        self.peak = 0
        self.largest: tuple[int, str] = (0, "")
        self.samples = 0

    def sample(self) -> bool:
        try:
            root = psutil.Process(self.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return False
        sizes = []
        for process in tree:
            try:
                sizes.append((process.memory_info().rss, " ".join(process.cmdline()[1:4])[:70]))
            except psutil.Error:
                continue
        self.samples += 1
        total = sum(rss for rss, _ in sizes)
        if total > self.peak:
            self.peak, self.largest = total, max(sizes)
        return True


@dataclass
class MainJob:
    """One measured run of the main job."""

    label: str
    seconds: float
    peak: int
    largest: tuple[int, str]
    steps: list[tuple[str, float]]
    longest_silence: float


def run_main_job(label: str, work: Path, env: dict[str, str]) -> MainJob:
    """`copy-tasks suite --out work/<label>` under `env`, measured."""
    command = [sys.executable, "-m", "copy_tasks", "suite", "--out", str(work / label)]
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    lines: list[tuple[float, str]] = []
    with TreeMemory(process.pid) as memory:
        for line in process.stderr:
            lines.append((time.monotonic() - start, line.rstrip("\n")))
        returncode = process.wait()
    seconds = time.monotonic() - start
    if returncode:
        sys.exit(f"{label}: {' '.join(command)} failed:\n" + "\n".join(line for _, line in lines[-20:]))
    steps = [(f"{match[3]}", float(match[4])) for _, line in lines if (match := STEP_DONE.match(line))]
    return MainJob(label, seconds, memory.peak, memory.largest, steps, longest_silence(lines))


def longest_silence(lines: list[tuple[float, str]]) -> float:
    """The longest gap between two console lines while a step of the job runs (from a step's
    first line to its `done` line).

    >>> longest_silence([(0, "[1/2] a: 3 tasks, 4 docs per task"), (20, "[1/2] a: x"), (45, "[1/2] a: done in 45 s"),
    ...                  (90, "[2/2] b: 1 tasks, 4 docs per task"), (95, "[2/2] b: done in 5 s")])
    25
    """
    longest, last = 0.0, None
    for at, line in lines:
        if last is not None:
            longest = max(longest, at - last)
        last = None if STEP_DONE.match(line) else at if STEP_START.match(line) or last is not None else None
    return longest


def source_of(ref: str, folder: Path) -> Path:
    """This repository's tree at `ref`, unpacked into `folder` (its copy_tasks runs from there)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=None, metavar="REF", help="also measure the main job of this git commit, "
                        "first")
    parser.add_argument("--model", default="gemma-3-270m", help="the model the main job prepares (prepared first)")
    args = parser.parse_args(argv)
    from copy_tasks.experiments.real_models import prepare

    model_bytes = sum(path.stat().st_size for path in prepare(args.model).glob("*.safetensors"))
    base_env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    jobs = []
    with tempfile.TemporaryDirectory(prefix="copy-tasks-main-job-") as work:
        versions = []
        if args.before:
            source = source_of(args.before, Path(work) / "before-source")
            versions.append((f"before ({args.before})", dict(base_env, PYTHONPATH=str(source))))
        versions.append(("now", base_env))
        for label, env in versions:
            jobs.append(run_main_job(label.split()[0], Path(work), env))
            jobs[-1].label = label
            print(f"{label}: {jobs[-1].seconds:.0f} s, peak {jobs[-1].peak / 1e9:.2f} GB", file=sys.stderr, flush=True)
    print(f"## The main job ({os.cpu_count()} cores; the model's weights {model_bytes / 1e9:.2f} GB, "
          f"3x: {3 * model_bytes / 1e9:.2f} GB)")
    print("| version | wall time | peak RSS, all processes | largest process then | longest silence in a step | "
          "steps |\n|---|---:|---:|---|---:|---|")
    for job in jobs:
        steps = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in job.steps)
        minutes, seconds = divmod(round(job.seconds), 60)
        print(f"| {job.label} | {minutes} min {seconds} s | {job.peak / 1e9:.2f} GB "
              f"({job.peak / model_bytes:.1f}x the model) | {job.largest[0] / 1e9:.2f} GB `{job.largest[1]}` | "
              f"{job.longest_silence:.0f} s | {steps} |")


if __name__ == "__main__":
    main()
