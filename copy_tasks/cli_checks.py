"""Check our options on an lm-eval command line before any model loads.

lm-eval builds tasks only after loading the model, so an option error raised by the dataset
hook would surface minutes later as a traceback from deep inside lm-eval. `copy-tasks run`
and (through the registration hook) `lm_eval` itself check `--metadata` and `--model_args`
first (and that the data source can be read, when a task that reads C4 or SQuAD is asked for), and turn
our `UserError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence

from copy_tasks.families import FAMILIES, Family, user_options
from copy_tasks.options import SourceOption, UserError, parse_present


def run_metadata(argv: Sequence[str]) -> dict:
    """The metadata lm-eval would give our tasks: `--model_args` merged with `--metadata`."""
    from lm_eval._cli.utils import MergeDictAction

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    for flag in ("--model_args", "--metadata"):
        parser.add_argument(flag, nargs="+", action=MergeDictAction, default=None)
    known, _ = parser.parse_known_args(list(argv))
    return {**(known.model_args or {}), **(known.metadata or {})}


def requested_tasks(argv: Sequence[str]) -> list[str]:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--tasks", "-t", nargs="+", default=[])
    known, _ = parser.parse_known_args(list(argv))
    return [name for value in known.tasks for name in value.split(",")]


def requested_families(tasks: Sequence[str]) -> list[Family]:
    """The families that a list of task and group names runs (`copy_tasks` runs them all).

    >>> [family.name for family in requested_families(["c4_copy_shuffled_50", "arc_easy"])]
    ['c4_copy_shuffled']
    """
    if "copy_tasks" in tasks:
        return list(FAMILIES.values())
    found = {}
    for task in tasks:
        matches = [family for family in FAMILIES.values() if task.startswith(family.name)]
        if matches:
            longest = max(matches, key=lambda family: len(family.name))
            found[longest.name] = longest
    return list(found.values())


def check_run_args(argv: Sequence[str]) -> None:
    """Raise UserError for a bad or unknown `copy_tasks_*` key on the command line, or for
    a data source (C4 or local text, SQuAD) that cannot be read by a requested task."""
    given = parse_present(run_metadata(argv), user_options())
    for family in requested_families(requested_tasks(argv)):
        for option in family.options:
            if isinstance(option, SourceOption):
                option.load(given.get(option.key, option.default))


def exit_on_option_error(main: Callable[[], object]) -> Callable[[], object]:
    """Wrap a CLI entry point: check `sys.argv` first; report a UserError in one line."""

    @functools.wraps(main)
    def guarded():
        try:
            check_run_args(sys.argv[1:])
            return main()
        except UserError as error:
            print(f"copy-tasks: error: {error}", file=sys.stderr)
            raise SystemExit(2) from None

    return guarded
