"""Check our options on an lm-eval run before any model loads.

lm-eval builds tasks only after loading the model, so an option error raised by the dataset
hook would surface minutes later as a traceback from deep inside lm-eval. Every command-line
run (`lm_eval`, `python -m lm_eval`, `copy-tasks run`, with or without `--config`) passes
through `check_or_exit` first (see `copy_tasks.harness.registration`): it checks our keys in
the merged `--model_args` and `--metadata`, and reads the data sources of the families the run
asks for (C4 or local text, SQuAD), including that a text source has passages long enough for
the requested lengths. A `UserError` becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.probes.families import FAMILIES, parse_task_name, user_options
from copy_tasks.probes.family import Family
from copy_tasks.probes.options import SourceOption, UserError, parse_present

UMBRELLA_GROUPS = {"copy_tasks": lambda family: True, "copy_tasks_offline": lambda family: not family.needs_download}


def requested(tasks: Iterable[str]) -> dict[Family, set[int]]:
    """The families a list of task and group names runs, with the lengths (all of a group's).

    >>> {family.name: sorted(lengths) for family, lengths in requested(["c4_copy_shuffled_50", "arc_easy"]).items()}
    {'c4_copy_shuffled': [50]}
    """
    found: dict[Family, set[int]] = {}
    for task in tasks:
        if task in UMBRELLA_GROUPS:
            for family in FAMILIES.values():
                if UMBRELLA_GROUPS[task](family):
                    found.setdefault(family, set()).update(family.lengths)
            continue
        group = FAMILIES.get(task.removesuffix("_tf"))
        if group is not None:
            found.setdefault(group, set()).update(group.lengths)
        elif (parsed := parse_task_name(task)) is not None:
            found.setdefault(FAMILIES[parsed[0]], set()).add(parsed[2])
    return found


def check_run(metadata: Mapping[str, Any], tasks: Iterable[str] | str) -> None:
    """Raise UserError for a bad or unknown `copy_tasks_*` key, or a data source that a
    requested task cannot read or that is too short for its lengths."""
    tasks = tasks.split(",") if isinstance(tasks, str) else [name for item in tasks for name in str(item).split(",")]
    given = parse_present(metadata, user_options())
    for family, lengths in requested(tasks).items():
        for option in family.options:
            if isinstance(option, SourceOption):
                option.check(given.get(option.key, option.default), max(lengths))


def check_or_exit(metadata: Mapping[str, Any], tasks: Iterable[str] | str) -> None:
    try:
        check_run(metadata, tasks or [])
    except UserError as error:
        print(f"copy-tasks: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
