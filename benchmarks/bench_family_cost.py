"""What a new family costs the test suite: the toy family of `tests/test_adding_a_family.py`
registered for a whole test run, against a run without it, side by side.

With COPY_TASKS_TEST_TOY_FAMILY=1 the tests' conftest registers the toy (`tests/toy_family.py`)
before any test module is collected, so every test that walks or is parametrized by the family
table takes it in, as it would a new family of the package. Prints each run's wall time and
test count, and the seconds the toy's own parametrized tests (`-k toy_digits_copy`) took.

    python benchmarks/bench_family_cost.py              # the quick tier (-m "not slow"), both ways
    python benchmarks/bench_family_cost.py --whole      # the whole suite, both ways (about 12 min)

Run it from the checkout; it runs `python -m pytest` there with the pytest options of
pyproject.toml (a test process per core).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOY = "toy_digits_copy"


def pytest_run(*args: str, toy: bool) -> tuple[float, str]:
    env = dict(os.environ, COPY_TASKS_TEST_TOY_FAMILY="1" if toy else "0")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    return time.monotonic() - started, summary


def own_tests_seconds(selection: list[str]) -> tuple[float, int]:
    """The summed durations of the tests parametrized by the toy (their ids name it)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *selection,
                           "-k", TOY, "--durations=0", "--durations-min=0"], cwd=ROOT,
                          env=dict(os.environ, COPY_TASKS_TEST_TOY_FAMILY="1"), capture_output=True, text=True)
    seconds = [float(match) for match in re.findall(r"^([0-9.]+)s (?:call|setup|teardown) ", done.stdout, re.M)]
    tests = re.search(r"(\d+) passed", done.stdout)
    return sum(seconds), int(tests.group(1)) if tests else 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--whole", action="store_true", help="the whole suite, not the quick tier")
    args = parser.parse_args(argv)
    selection = [] if args.whole else ["-m", "not slow"]
    print(f"| suite ({'whole' if args.whole else 'quick tier'}) | wall s | tests |")
    print("|---|---:|---|")
    times = {}
    for toy in (False, True):
        times[toy], summary = pytest_run(*selection, toy=toy)
        print(f"| {'with' if toy else 'without'} the toy family | {times[toy]:.0f} | {summary} |")
    print(f"\nthe toy family adds {times[True] - times[False]:+.0f} s ({times[True] / times[False]:.2f}x)")
    seconds, tests = own_tests_seconds(selection)
    print(f"its own {tests} parametrized tests (-k {TOY}, one process): {seconds:.1f} s")


if __name__ == "__main__":
    main()
