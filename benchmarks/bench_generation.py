"""Data generation speed: every task of every family at default settings, from a cold cache.

Prints seconds and docs per second per family, and the ratio to the target of 1 second per
family. Run with `python benchmarks/run.py` (all benchmarks) or this file alone.
"""

from __future__ import annotations

import time

from copy_tasks.docs import generate_docs
from copy_tasks.families import FAMILIES

TARGET_SECONDS_PER_FAMILY = 1.0


def time_family(name: str) -> tuple[float, int]:
    family = FAMILIES[name]
    generate_docs.cache_clear()
    start = time.perf_counter()
    docs = sum(len(generate_docs(name, "1.0", n, 1234, family.default_docs)) for n in family.lengths)
    return time.perf_counter() - start, docs


def main() -> None:
    print("## Data generation (default settings, cold cache)")
    print(f"{'family':<20}{'docs':>8}{'seconds':>10}{'docs/s':>10}{'x target':>10}")
    total_seconds, total_docs = 0.0, 0
    for name in FAMILIES:
        seconds, docs = time_family(name)
        total_seconds += seconds
        total_docs += docs
        print(f"{name:<20}{docs:>8}{seconds:>10.3f}{docs / seconds:>10.0f}"
              f"{seconds / TARGET_SECONDS_PER_FAMILY:>10.2f}")
    print(f"{'all':<20}{total_docs:>8}{total_seconds:>10.3f}{total_docs / total_seconds:>10.0f}")


if __name__ == "__main__":
    main()
