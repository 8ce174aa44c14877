"""Check our options on an lm-eval command line before any model loads.

lm-eval builds tasks only after loading the model, so an option error raised by the dataset
hook would surface minutes later as a traceback from deep inside lm-eval. `copy-tasks run`
and (through the registration hook) `lm_eval` itself check `--metadata` and `--model_args`
first, and turn our `OptionError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence

from copy_tasks.families import user_options
from copy_tasks.options import OptionError, parse_present


def run_metadata(argv: Sequence[str]) -> dict:
    """The metadata lm-eval would give our tasks: `--model_args` merged with `--metadata`."""
    from lm_eval._cli.utils import MergeDictAction

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    for flag in ("--model_args", "--metadata"):
        parser.add_argument(flag, nargs="+", action=MergeDictAction, default=None)
    known, _ = parser.parse_known_args(list(argv))
    return {**(known.model_args or {}), **(known.metadata or {})}


def check_run_args(argv: Sequence[str]) -> None:
    """Raise OptionError for a bad or unknown `copy_tasks_*` key on the command line."""
    parse_present(run_metadata(argv), user_options())


def exit_on_option_error(main: Callable[[], object]) -> Callable[[], object]:
    """Wrap a CLI entry point: check `sys.argv` first; report OptionError in one line."""

    @functools.wraps(main)
    def guarded():
        try:
            check_run_args(sys.argv[1:])
            return main()
        except OptionError as error:
            print(f"copy-tasks: error: {error}", file=sys.stderr)
            raise SystemExit(2) from None

    return guarded
