"""Check our options on an lm-eval command line before any model loads.

lm-eval builds tasks only after loading the model, so an option error raised by the dataset
hook would surface minutes later as a traceback from deep inside lm-eval. `copy-tasks run`
and (through the registration hook) `lm_eval` itself check `--metadata` and `--model_args`
first (and that the text source can be read, when a natural-text task is asked for), and turn
our `UserError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence

from copy_tasks.families import FAMILIES, TEXT_SOURCE, user_options
from copy_tasks.options import UserError, parse_present
from copy_tasks.text_sources import load_documents


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


def needs_text(task: str) -> bool:
    """Whether a task name (or group) runs a family that reads natural text."""
    return task == "copy_tasks" or any(
        task.startswith(family.name) for family in FAMILIES.values() if TEXT_SOURCE in family.options
    )


def check_run_args(argv: Sequence[str]) -> None:
    """Raise UserError for a bad or unknown `copy_tasks_*` key on the command line, or for
    a text source that cannot be read when a natural-text task is requested."""
    given = parse_present(run_metadata(argv), user_options())
    if any(needs_text(task) for task in requested_tasks(argv)):
        load_documents(given.get(TEXT_SOURCE.key, TEXT_SOURCE.default))


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
