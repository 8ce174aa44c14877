"""The numbers of one scoring rule's table, computed once for the summary and the page: a row
per model in its setting (`series`), a `Score` per family (`score_table`).

A table per scoring rule (`TABLES`): generation under the authors' rule (`authors_exact_match`,
the number the paper reports), generation under ours (`exact_match`: the answer at the start,
whatever follows), and teacher-forced (`exact_match`, lm-eval's `is_greedy`). A task's own flags
(family options, budgets raised by `max_gen_toks`) follow the cell (`task_flags`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED
from copy_tasks.report.curves import CUT, Score, curves, docs_behind, overflowed
from copy_tasks.report.flags import split_flags
from copy_tasks.report.series import KEPT_APART, series, setting
from copy_tasks.report.table import as_written


class Rule(NamedTuple):
    """One scoring rule of the tables: the variant and metric it reads, a short label, a title."""

    variant: str
    metric: str
    label: str
    title: str


AUTHORS_RULE = Rule(GENERATION, "authors_exact_match", "authors' rule",
                    "Generation, the authors' rule (the paper's protocol: `authors_exact_match`)")
OUR_RULE = Rule(GENERATION, "exact_match", "our rule",
                "Generation, our rule (the answer at the start, whatever follows: `exact_match`)")
TEACHER_FORCED_RULE = Rule(TEACHER_FORCED, "exact_match", "teacher-forced",
                           "Teacher-forced (greedy exact match in one forward pass: `exact_match`)")
# One summary table each, in this order.
TABLES = (AUTHORS_RULE, OUR_RULE, TEACHER_FORCED_RULE)


@dataclass(frozen=True)
class TableRow:
    """A row of a table: a model in its setting (`series`), as written, and its `Score` per
    family (None: not run)."""

    entry: str
    model: str
    architecture: str
    setting: str
    scores: dict[str, Score | None]


@dataclass(frozen=True)
class ScoreTable:
    """The numbers of one rule's table: its families (in `FAMILIES` order) and rows (by `series`)."""

    rule: Rule
    families: list[str]
    rows: list[TableRow]
    # family -> series -> length -> its value, or `CUT` where some doc overflowed (the
    # per-length tables)
    every_length: dict[str, dict[str, dict[int, float | str]]] = field(default_factory=dict)
    # family -> series -> length -> the docs behind its value, where the rows record them
    docs: dict[str, dict[str, dict[int, int]]] = field(default_factory=dict)


def natural_order(name: str) -> tuple:
    """A sort key that reads the numbers in a name as numbers: budgets in the order of their bits.

    >>> sorted(["bounded_state(bits=1024)", "bounded_state(bits=128)", "bounded_state(bits=64)"], key=natural_order)
    ['bounded_state(bits=64)', 'bounded_state(bits=128)', 'bounded_state(bits=1024)']
    """
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part)


def row_flags(scores: list[Score | None]) -> str:
    """The task flags a row's every score has (its flags column says them once), else "".

    >>> row_flags([Score(((10, 1.0),), task_flags="copy_tasks_copy_format=paper"), None,
    ...            Score(((10, 0.5),), task_flags="copy_tasks_copy_format=paper")])
    'copy_tasks_copy_format=paper'
    >>> row_flags([Score(((10, 1.0),), task_flags="a=1"), Score(((10, 1.0),))])
    ''
    """
    flags = {score.task_flags for score in scores if score is not None}
    return flags.pop() if len(flags) == 1 else ""


def score_table(rows: list[dict], rule: Rule) -> ScoreTable | None:
    """The table of one rule (summary.md and index.html show it), or None when no row has its
    metric."""
    variant, metric = rule.variant, rule.metric
    families = [name for name in FAMILIES
                if any((r["family"], r["variant"], r["metric"]) == (name, variant, metric) for r in rows)]
    if not families:
        return None
    by_family = {name: curves(rows, name, variant, metric) for name in families}
    cut = {name: overflowed(rows, name, variant) for name in families}
    flags = {name: task_flags(rows, name, variant) for name in families}
    docs = {name: docs_behind(rows, name, variant, metric) for name in families}
    entries = sorted({entry for name in families for entry in (*by_family[name], *cut[name])}, key=natural_order)
    about = {series(row): (as_written(row["name"]), row["architecture"], setting(row)) for row in rows}
    table_rows = []
    for entry in entries:
        scores = {name: _score(by_family[name].get(entry, []), cut[name].get(entry, set()), flags[name].get(entry, ""),
                               docs[name].get(entry, {}))
                  if entry in by_family[name] or entry in cut[name] else None for name in families}
        table_rows.append(TableRow(entry, *about.get(entry, (entry, "", "")), scores))
    every_length = {name: {entry: {**dict.fromkeys(cut[name].get(entry, set()), CUT),
                                   **{length: value for length, value, _ in by_family[name].get(entry, [])}}
                           for entry in entries if entry in by_family[name] or entry in cut[name]}
                    for name in families}
    return ScoreTable(rule, families, table_rows, every_length, docs)


def _score(curve: list[tuple[int, float, float]], cut: set[int], flags: str, docs: dict[int, int]) -> Score:
    """A row's `Score` on one family: its curve's points, the lengths cut, its flags, and the
    docs behind its points where every point records them."""
    points = tuple((length, value) for length, value, _ in curve)
    known = tuple(docs[length] for length, _ in points if length in docs)
    return Score(points, tuple(sorted(cut)), flags, known if len(known) == len(points) else ())


def task_flags(rows: list[dict], family: str, variant: str) -> dict[str, str]:
    """series -> the tasks' own flags of a family and variant, each distinct flag once (those
    the series' name already shows left out)."""
    found = defaultdict(dict)
    for row in rows:
        if (row["family"], row["variant"]) == (family, variant):
            own, named = split_flags(as_written(row["flags"]))[1], row.get(KEPT_APART, "").split(";")
            found[series(row)].update(dict.fromkeys(flag for flag in own.split(";") if flag and flag not in named))
    return {name: ";".join(flags) for name, flags in found.items()}


def first_view(tables: list[ScoreTable]) -> ScoreTable:
    """The rule the page opens on: the one under which the most cells (a row's family) have
    numbers, the first in `TABLES` order among equals. The main job generates three families and
    teacher-forces every one: opened on a generation rule, its model's row was mostly `-`."""
    return max(tables, key=lambda table: (sum(score is not None and bool(score.points) for row in table.rows
                                              for score in row.scores.values()), -tables.index(table)))
