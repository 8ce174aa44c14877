"""Check a run's `copy_tasks_*` options and data sources against the tasks it asks for,
before any doc is drawn or model loaded: a bad or unknown key, or a data source a requested task
cannot read or that is too short for its lengths, raises `UserError` naming it.

Command-line runs check their task names here first (`check_options_and_sources`, from
`copy_tasks.harness.cli_checks`); `copy-tasks export`, which has families and lengths, checks
them as they are (`check_families`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.probes.families import FAMILIES, UMBRELLA_GROUPS, parse_task_name, task_settings, user_options
from copy_tasks.probes.family import Family
from copy_tasks.probes.options import PREFIX, OptionError, SourceOption, parse_present


def requested(tasks: Iterable[str]) -> dict[Family, set[int]]:
    """The families a list of task and group names runs, with the lengths (all of a group's).

    >>> {family.name: sorted(lengths) for family, lengths in requested(["c4_copy_shuffled_50", "arc_easy"]).items()}
    {'c4_copy_shuffled': [50]}
    """
    found: dict[Family, set[int]] = {}
    for task in tasks:
        if task in UMBRELLA_GROUPS:
            for family in FAMILIES.values():
                if lengths := UMBRELLA_GROUPS[task].lengths(family):
                    found.setdefault(family, set()).update(lengths)
            continue
        group = FAMILIES.get(task.removesuffix("_tf"))
        if group is not None:
            found.setdefault(group, set()).update(group.lengths)
        elif (parsed := parse_task_name(task)) is not None:
            found.setdefault(FAMILIES[parsed[0]], set()).add(parsed[2])
    return found


def task_names(tasks: Iterable[str] | str) -> list[str]:
    """The task and group names of a run's `--tasks` (comma-separated text or a list of it).

    >>> task_names("a,b"), task_names(["a,b", "c"])
    (['a', 'b'], ['a', 'b', 'c'])
    """
    return tasks.split(",") if isinstance(tasks, str) else [name for item in tasks for name in str(item).split(",")]


def check_options_and_sources(metadata: Mapping[str, Any], tasks: Iterable[str] | str) -> None:
    """`check_families` of the families and lengths a run's task and group names ask for."""
    check_families(metadata, requested(task_names(tasks)))


def check_families(metadata: Mapping[str, Any], families: Mapping[Family, Iterable[int]]) -> None:
    """Raise UserError for a bad or unknown `copy_tasks_*` key in `metadata`, a data source
    that a family cannot read or that is too short for its lengths, or a length its family
    cannot draw under these options (`Family.check_length`).

    >>> check_families({"copy_tasks_docs": "x"}, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.OptionError: copy_tasks_docs='x' is not allowed: ...
    """
    given = parse_present(metadata, user_options())
    for family, lengths in families.items():
        lengths = list(lengths)
        for option in family.options:
            if isinstance(option, SourceOption):
                option.check(given.get(option.key, option.default), max(lengths))
        check_lengths(family, lengths, metadata)


def check_lengths(family: Family, lengths: Iterable[int], metadata: Mapping[str, Any]) -> None:
    """Raise OptionError naming the first task of `lengths` that `family` cannot draw under the
    options in `metadata`.

    >>> check_lengths(FAMILIES["mqar"], [8, 600], {"copy_tasks_mqar_format": "zoology"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.OptionError: mqar_600 cannot be drawn: copy_tasks_mqar_format=zoology has 512 ...
    """
    if family.check_length is None:
        return
    options = dict(task_settings(family, metadata).doc_options)
    for length in sorted(lengths):
        try:
            family.check_length(length, **options)
        except ValueError as error:
            raise OptionError(f"{family.task_name(length)} cannot be drawn: {error}") from None


def is_ours(task: str) -> bool:
    """Whether a task or group name is one of copy-tasks' (a task, a family's group, an umbrella).

    >>> is_ours("phonebook_copy_20"), is_ours("random_copy_tf"), is_ours("copy_tasks"), is_ours("ruler")
    (True, True, True, False)
    """
    return task in UMBRELLA_GROUPS or task.removesuffix("_tf") in FAMILIES or parse_task_name(task) is not None


def unused_metadata_keys(metadata: Mapping[str, Any], tasks: Iterable[str] | str,
                         model_args: Mapping[str, Any] | None = None) -> list[str]:
    """The `--metadata` keys no task of a run reads, when every task is ours (ours read only
    `copy_tasks_*` keys; another suite's task may read any key, so then none is named). Keys of
    `--model_args`, which lm-eval merges into the metadata, are the model's.

    >>> unused_metadata_keys({"foo": 1, "copy_tasks_docs": 5, "pretrained": "m"}, "phonebook_copy_20",
    ...                      {"pretrained": "m"})
    ['foo']
    >>> unused_metadata_keys({"max_seq_lengths": [4096]}, "phonebook_copy_20,ruler")
    []
    """
    names = [name.strip() for name in task_names(tasks) if name.strip()]
    if not names or not all(is_ours(name) for name in names):
        return []
    model_keys = set(model_args or {})
    return sorted(str(key) for key in metadata if not str(key).startswith(PREFIX) and key not in model_keys)
