"""Which line of a plot and row of a table a leaderboard row is (`series`: the model in its
setting), and which run of it is shown (`latest_runs`).

A run's setting is the flags that change what all its numbers mean (`flags.RUN_FLAGS`): runs of
one model in two settings are two rows of each table, two lines of each plot. Runs of one model
and setting that are other experiments are kept apart the same way, the setting naming what
differs (`kept_apart`): another backend (`backend=hf_fast`), other docs of a family
(`copy_tasks_mqar_format=zoology`). Every run stays in the CSV; the newest one of each (model,
backend, setting, family options, task), by its lm-eval date, is the one summarised and plotted.
"""

from __future__ import annotations

from collections import defaultdict

from copy_tasks.probes.families import FAMILIES
from copy_tasks.report.flags import split_flags
from copy_tasks.report.table import as_written

# The key of a shown row (`latest_runs`) naming what keeps it apart from rows of the same model
# and setting that are other experiments: another backend, other docs (family options).
KEPT_APART = "kept_apart"


def setting(row: dict) -> str:
    """What a row's line and table row are, besides the model: its run's setting (`split_flags`),
    then what `latest_runs` kept apart.

    >>> setting({"flags": "limit=5;copy_tasks_mqar_format=zoology", KEPT_APART: "copy_tasks_mqar_format=zoology"})
    'limit=5;copy_tasks_mqar_format=zoology'
    """
    return ";".join(part for part in (split_flags(as_written(row["flags"]))[0], row.get(KEPT_APART, "")) if part)


def series(row: dict) -> str:
    """The name of a row's line in the plots and row in the tables: the model, and its `setting`
    in brackets when it has one.

    >>> series({"name": "SmolLM2", "flags": "chat_template;max_gen_toks_sent=50"})
    'SmolLM2 [chat_template]'
    """
    shown = setting(row)
    model = as_written(row["name"])
    return f"{model} [{shown}]" if shown else model


def family_options(row: dict) -> str:
    """The family options of a row's task other than their defaults, as its flags write them
    (other docs than the family's default: another prompt format, key length...).

    >>> family_options({"family": "mqar", "flags": "max_gen_toks_sent=9;copy_tasks_mqar_format=zoology"})
    'copy_tasks_mqar_format=zoology'
    """
    keys = {option.key for option in FAMILIES[row["family"]].options} if row["family"] in FAMILIES else set()
    return ";".join(flag for flag in split_flags(as_written(row["flags"]))[1].split(";")
                    if flag.partition("=")[0] in keys)


def kept_apart(rows: list[dict]) -> list[dict]:
    """The rows, each with what tells it from other experiments shown under the same model and
    setting (`KEPT_APART`): its backend where the model ran through several (`hf` and `hf_fast`),
    its family options where the model ran a family with several (mqar in its natural and in
    Zoology's format: other docs). Nothing where a model and setting is one experiment, so the
    names stay as they are. The rows are copies; those given do not change.

    >>> rows = [{"name": "m", "flags": flags, "backend": "hf", "family": "mqar"}
    ...         for flags in ("", "copy_tasks_mqar_format=zoology")]
    >>> [series(row) for row in kept_apart(rows)]
    ['m', 'm [copy_tasks_mqar_format=zoology]']
    """
    backends, options = defaultdict(set), defaultdict(set)
    for row in rows:
        backends[series(row)].add(row["backend"])
        options[(series(row), row["family"])].add(family_options(row))
    found = []
    for row in rows:
        parts = [f"backend={row['backend']}"] if len(backends[series(row)]) > 1 else []
        if len(options[(series(row), row["family"])]) > 1 and family_options(row):
            parts.append(family_options(row))
        found.append({**row, KEPT_APART: ";".join(parts)} if parts else row)
    return found


def latest_runs(rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The rows of the newest run of each (model in its setting, backend, family options, task):
    other backends and other docs kept apart (`kept_apart`), and a note per model that has
    several runs of a task."""
    rows = kept_apart(rows)
    runs = defaultdict(set)
    for row in rows:
        runs[(series(row), row["backend"], row["task"])].add((row["date"], row["run"], row["source_file"]))
    newest = {key: max(found) for key, found in runs.items()}
    notes = sorted({
        f"{model} ({backend}): {len(found)} runs of {task} (in {', '.join(sorted(f[2] for f in found))}); "
        f"all stay in the CSV, the summary and plots use the latest ({newest[(model, backend, task)][1]})"
        for (model, backend, task), found in runs.items() if len(found) > 1
    })
    kept = [row for row in rows
            if (row["date"], row["run"], row["source_file"]) == newest[(series(row), row["backend"], row["task"])]]
    return kept, notes
