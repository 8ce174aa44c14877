"""The progress line's estimate of the time left, against the time the requests really took.

Runs the README's main job (`copy-tasks suite --preset quick --models gemma-3-270m`) into a
temporary folder, or reads the lm-eval log of a run already made (`--log`, a suite's
`logs/<label>.log`, whose first line is the command it ran). lm-eval's request bars in the log
give, at each update, the requests done and the seconds spent on that kind; the bar's last update
gives the seconds it took in all. At every update with at least a quarter of the requests done,
the time left is estimated two ways, side by side: by tqdm from the count of requests done (what
the line showed before), and from their costs (`copy_tasks.experiments.request_costs`, what it
shows now). Printed: per kind, the worst and median ratio of each estimate to the truth (1.0
is exact; the goal is within 2x, from 0.5 to 2.0).

    python benchmarks/bench_progress_estimate.py                      # the main job: minutes
    python benchmarks/bench_progress_estimate.py --log runs/pub/logs/gemma-3-270m.log
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from copy_tasks.experiments.lm_eval_runner import REQUEST_BAR, _tqdm_seconds
from copy_tasks.experiments.request_costs import request_costs

QUARTER = 0.25


def bars(log: str) -> dict[str, list[tuple[int, int, float, float | None]]]:
    """kind -> every update of its request bar: (done, total, seconds spent, tqdm's seconds left)."""
    found: dict[str, list] = {}
    for bar in REQUEST_BAR.finditer(log):
        left = None if bar["left"] == "?" else float(_tqdm_seconds(bar["left"]))
        found.setdefault(bar["kind"], []).append((int(bar["done"]), int(bar["total"]),
                                                  float(_tqdm_seconds(bar["spent"])), left))
    return found


def run_arguments(log: str) -> tuple[list[str], dict]:
    """The tasks and metadata of the run a log's first line names."""
    words = shlex.split(log.splitlines()[0].split("&&", 1)[1])
    tasks = words[words.index("--tasks") + 1].split(",")
    metadata = json.loads(words[words.index("--metadata") + 1]) if "--metadata" in words else {}
    return tasks, metadata


def compare(log: str) -> list[str]:
    tasks, metadata = run_arguments(log)
    costs = request_costs(tasks, metadata)
    lines = ["| kind | requests | took (s) | updates scored | tqdm: worst, median ratio | costs: worst, median ratio |",
             "|---|---:|---:|---:|---|---|"]
    for kind, updates in bars(log).items():
        total, took = updates[-1][1], updates[-1][2]
        ratios: dict[str, list[float]] = {"tqdm": [], "costs": []}
        for done, _, spent, tqdm_left in updates:
            truth = took - spent
            if done < QUARTER * total or done == total or truth < 5:  # under 5 s left: rounding
                continue
            if tqdm_left is not None:
                ratios["tqdm"].append(tqdm_left / truth)
            if (ours := costs.seconds_left(kind, done, spent)) is not None:
                ratios["costs"].append(ours / truth)

        def shown(values: list[float]) -> str:
            if not values:
                return "-"
            worst = max(values, key=lambda ratio: max(ratio, 1 / ratio) if ratio > 0 else float("inf"))
            return f"{worst:.2f}, {statistics.median(values):.2f}"

        lines.append(f"| {kind} | {total} | {took:.0f} | {len(ratios['costs'])} | {shown(ratios['tqdm'])} | "
                     f"{shown(ratios['costs'])} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, help="a suite's lm-eval log to read, instead of running the main job")
    args = parser.parse_args()
    if args.log is None:
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, "-m", "copy_tasks", "suite", "--preset", "quick", "--models",
                            "gemma-3-270m", "--out", folder], check=True, stdout=subprocess.DEVNULL)
            log = (Path(folder) / "logs" / "gemma-3-270m.log").read_text(errors="replace")
    else:
        log = args.log.read_text(errors="replace")
    log = re.sub(r"\r", "\n", log)
    print("\n".join(compare(log)))


if __name__ == "__main__":
    main()
