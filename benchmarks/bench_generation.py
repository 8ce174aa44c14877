"""Data generation speed: every task of every family at default settings, from a cold cache.

Prints docs and seconds per family, docs per second, each family's time as a multiple of the
1-second target and the total as a multiple of the 2-second suite target. Beside them, what
`--limit 1` would save if a task drew only the docs it scores (it draws every doc: the docs'
fingerprint `copy_tasks_docs_sha256` is over all of them): the seconds to draw each task's
first doc alone, summed over the family's lengths, and the family's slowest task, every doc
against the first alone. The natural-text
families read a local text file (`--text`, by default the GPL-3 text that Debian ships);
loading it is timed apart from drawing the passages. `squad_length` runs only with a local
SQuAD-format file (`--squad`).
Run with `python benchmarks/run.py` (all benchmarks) or this file alone.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.options import SourceOption
from copy_tasks.probes.task_docs import generate_docs
from copy_tasks.probes.text_sources import load_documents

TARGET_SECONDS_PER_FAMILY = 1.0
TARGET_SECONDS_SUITE = 2.0
DEFAULT_TEXT = Path("/usr/share/common-licenses/GPL-3")


def time_task(name: str, length: int, count: int, options: tuple[tuple[str, str], ...]) -> float:
    """Seconds to draw `count` docs of one task, from a cold cache."""
    generate_docs.cache_clear()
    start = time.perf_counter()
    generate_docs(name, length, 1234, count, options)
    return time.perf_counter() - start


def time_family(name: str, options: tuple[tuple[str, str], ...]) -> tuple[float, int, float, tuple[int, float, float]]:
    """(seconds for every task's default docs, their count, seconds for every task's first doc
    alone, (length, every doc s, first doc s) of the slowest task)."""
    family = FAMILIES[name]
    every = {n: time_task(name, n, family.default_docs, options) for n in family.lengths}
    first = {n: time_task(name, n, 1, options) for n in family.lengths}
    slowest = max(every, key=every.get)
    return (sum(every.values()), family.default_docs * len(family.lengths), sum(first.values()),
            (slowest, every[slowest], first[slowest]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", default=str(DEFAULT_TEXT) if DEFAULT_TEXT.exists() else None)
    parser.add_argument("--squad", default=None, help="a SQuAD-format JSON file for squad_length")
    args = parser.parse_args(argv)
    sources = {"text_source": (args.text, "--text"), "squad_source": (args.squad, "--squad")}
    print("## Data generation (default settings, cold cache)")
    if args.text:
        start = time.perf_counter()
        load_documents(args.text)
        print(f"loading the text source {args.text}: {time.perf_counter() - start:.3f} s")
    print(f"{'family':<20}{'docs':>8}{'seconds':>10}{'docs/s':>10}{'x target':>10}{'first docs s':>14}  "
          "slowest task: every doc s / first doc s")
    total_seconds, total_docs, total_first = 0.0, 0, 0.0
    for name, family in FAMILIES.items():
        wanted = [sources[option.argument] for option in family.options if isinstance(option, SourceOption)]
        missing = [flag for path, flag in wanted if not path]
        if missing:
            print(f"{name:<20} skipped: no {', '.join(missing)}")
            continue
        options = tuple((option.argument, sources[option.argument][0]) for option in family.options
                        if isinstance(option, SourceOption))
        seconds, docs, first, (length, slowest_every, slowest_first) = time_family(name, options)
        total_seconds += seconds
        total_docs += docs
        total_first += first
        print(f"{name:<20}{docs:>8}{seconds:>10.3f}{docs / seconds:>10.0f}{seconds / TARGET_SECONDS_PER_FAMILY:>10.2f}"
              f"{first:>14.3f}  {name}_{length}: {slowest_every:.3f} / {slowest_first:.3f}")
    print(f"{'all':<20}{total_docs:>8}{total_seconds:>10.3f}{total_docs / total_seconds:>10.0f}"
          f"{total_seconds / TARGET_SECONDS_SUITE:>10.2f}{total_first:>14.3f}  "
          f"(x the {TARGET_SECONDS_SUITE:.0f}-second suite target)")


if __name__ == "__main__":
    main()
