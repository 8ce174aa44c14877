"""Leaderboard speed: aggregate 1,000 lm-eval results files (target: under 10 seconds).

The files are written like `lm_eval --output_path` writes them (the tests' fixture writer):
100 models x 10 runs each, every run the 12 phone-book tasks (generation and teacher-forced at
6 lengths), so 1,000 files and 24,000 CSV rows. Timed: a build into an empty folder (read,
merge, CSV, plots of the latest run of each model, summary), then adding one more file to
that leaderboard.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from leaderboard_fixtures import write_results  # noqa: E402

from copy_tasks.probes.families import FAMILIES  # noqa: E402
from copy_tasks.report.build import build_leaderboard  # noqa: E402

TARGET_SECONDS = 10.0


def write_inputs(folder: Path, files: int) -> None:
    family = FAMILIES["phonebook_copy"]
    models = max(1, files // 10)
    for index in range(files):
        model, run = index % models, index // models
        scores = {}
        for length in family.lengths:
            accuracy = max(0.0, 1.0 - length / (200 + 10 * model))
            scores[family.task_name(length)] = {"exact_match": accuracy, "exact_match_stderr": 0.05,
                                                "prefix_match": accuracy, "prefix_match_stderr": 0.05}
            scores[family.task_name(length, teacher_forced=True)] = {
                "exact_match": accuracy, "exact_match_stderr": 0.05, "bits_per_char": 1 - accuracy,
                "bits_per_char_stderr": 0.01,
            }
        write_results(folder / f"model-{model}", f"org/model-{model}", scores,
                      date=f"2026-{1 + run % 12:02d}-{1 + run // 12:02d}T10:00:00")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args(argv)
    print(f"## Leaderboard: aggregating {args.files} results files")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        write_inputs(scratch / "results", args.files)
        start = time.perf_counter()
        build_leaderboard([scratch / "results"], scratch / "out")
        cold = time.perf_counter() - start
        rows = (scratch / "out" / "leaderboard.csv").read_text().count("\n") - 1
        write_results(scratch / "more", "org/late-model", {"phonebook_copy_20": {"exact_match": 1.0}},
                      date="2026-12-31T10:00:00")
        start = time.perf_counter()
        build_leaderboard([scratch / "more"], scratch / "out")
        added = time.perf_counter() - start
    print(f"{'step':<44}{'seconds':>10}{'x target':>10}")
    print(f"{f'build from {args.files} files ({rows} rows)':<44}{cold:>10.2f}{cold / TARGET_SECONDS:>10.2f}")
    print(f"{'add one file to that leaderboard':<44}{added:>10.2f}{added / TARGET_SECONDS:>10.2f}")


if __name__ == "__main__":
    main()
