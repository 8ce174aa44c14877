"""The family table: every module (or subpackage) of this package holds the whole of its
families, data and scoring, and declares them (`register(Family(...))`): one family each, but
`lookup`, whose two families share their docs.

Importing the package imports each of its modules, so a new family is one new module here (and
its README folder in task_configs/); the table, `copy-tasks list`, the README's families table,
the YAMLs, the conformance battery, the suite and the tests pick it up. This is also where a
task name is parsed and a task's options are read.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from copy_tasks.probes.family import GENERATION, REGISTRY, TEACHER_FORCED, TEACHER_FORCED_SUFFIX, Family
from copy_tasks.probes.options import DOCS, RECORDED_KEYS, SEED, Option, parse_present

for _module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
    importlib.import_module(f"{__name__}.{_module.name}")

# The table in name order, whatever order the modules registered in (one imports another's reader).
_registered = sorted(REGISTRY.items())
REGISTRY.clear()
REGISTRY.update(_registered)
FAMILIES: dict[str, Family] = REGISTRY  # name -> family, by name; grows as family modules register
TASK_NAME = re.compile(r"^(?P<family>.+?)(?P<tf>_tf)?_(?P<length>\d+)$")


CPU_MAX_LENGTH = 200  # `copy_tasks_cpu`: what a small model runs on a CPU (benchmarks/bench_costs.py: the cost)


@dataclass(frozen=True)
class UmbrellaGroup:
    """A group over several families: what it is for, and the lengths of a family it runs
    (none: the family is not in it). Its YAML is written by `copy_tasks.harness.task_yamls`.

    >>> UMBRELLA_GROUPS["copy_tasks_cpu"].lengths(FAMILIES["phonebook_copy"])
    (10, 20, 30, 50, 70, 100, 150, 200)
    >>> UMBRELLA_GROUPS["copy_tasks_offline"].lengths(FAMILIES["c4_copy"])
    ()
    """

    description: str
    offline_only: bool = False
    max_length: int | None = None

    def lengths(self, family: Family) -> tuple[int, ...]:
        if self.offline_only and family.needs_download:
            return ()
        return tuple(n for n in family.lengths if self.max_length is None or n <= self.max_length)

    @property
    def whole_families(self) -> bool:
        """Whether it holds every length of its families (it then lists their groups, not tasks)."""
        return self.max_length is None


UMBRELLA_GROUPS = {
    "copy_tasks": UmbrellaGroup("Every family of the suite."),
    "copy_tasks_offline": UmbrellaGroup("Every family that needs no download (generated data only).",
                                        offline_only=True),
    "copy_tasks_cpu": UmbrellaGroup(f"The offline families at lengths up to {CPU_MAX_LENGTH}, both variants: sized "
                                    "for a small model on a CPU.", offline_only=True, max_length=CPU_MAX_LENGTH),
}


def family_named(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown family {name!r}; families are {', '.join(FAMILIES)}") from None


def parse_task_name(name: str) -> tuple[str, str, int] | None:
    """(family, variant, length) of one of our task names, or None for any other task: the
    inverse of `Family.task_name`.

    >>> parse_task_name("c4_copy_shuffled_tf_200")
    ('c4_copy_shuffled', 'teacher_forced', 200)
    >>> parse_task_name("arc_easy") is None
    True
    """
    match = TASK_NAME.match(name)
    if not match or match["family"] not in FAMILIES:
        return None
    return match["family"], TEACHER_FORCED if match["tf"] else GENERATION, int(match["length"])


def user_options() -> dict[str, Option]:
    """Every option a user may pass in `--metadata`, by key."""
    options: dict[str, Option] = {SEED.key: SEED, DOCS.key: DOCS}
    for family in FAMILIES.values():
        options.update((option.key, option) for option in family.options)
    return options


@dataclass(frozen=True)
class Settings:
    """The data settings of one task: seed, doc count and the family's own options."""

    seed: int
    docs: int
    doc_options: tuple[tuple[str, Any], ...]  # (argument, value), hashable for caching


def task_settings(family: Family, metadata: Mapping[str, Any]) -> Settings:
    """Validate the merged metadata of a task and fill in defaults; what our task class
    recorded in the metadata of an earlier build (`RECORDED_KEYS`) is not an option and is
    passed over.

    >>> task_settings(FAMILIES["lookup_suffix"], {"copy_tasks_seed": 3, "copy_tasks_lookup_format": "paper"})
    Settings(seed=3, docs=200, doc_options=(('key_length', 4), ('answer_length', 4), ('fmt', 'paper')))
    """
    given = parse_present({key: value for key, value in metadata.items() if key not in RECORDED_KEYS},
                          user_options())
    return Settings(
        seed=given.get(SEED.key, SEED.default),
        docs=given.get(DOCS.key, family.default_docs),
        doc_options=tuple(
            (option.argument, given.get(option.key, option.default)) for option in family.options
        ),
    )


def lengths_text(family: Family) -> str:
    """A family's lengths as the families table shows them.

    >>> lengths_text(FAMILIES["dup_ngram_copy"]), lengths_text(FAMILIES["squad_length"])
    ('1 to 8', 'bins up to 100, 150, 200, 300, 1000')
    """
    lengths = family.lengths
    if family.select_docs is not None:
        return "bins up to " + ", ".join(map(str, lengths))
    if len(lengths) > 3 and lengths == tuple(range(lengths[0], lengths[-1] + 1)):
        return f"{lengths[0]} to {lengths[-1]}"
    return ", ".join(map(str, lengths))


def family_table() -> str:
    """The families as a Markdown table, from their declarations (`copy-tasks list` prints it,
    and so does the README).

    >>> print(family_table().splitlines()[0])
    | family | what | unit | lengths | docs per length | teacher-forced | download |
    """
    lines = ["| family | what | unit | lengths | docs per length | teacher-forced | download |",
             "|---|---|---|---|---|---|---|"]
    for family in FAMILIES.values():
        lines.append(f"| `{family.name}` | {family.summary} | {family.unit} | {lengths_text(family)} | "
                     f"{family.default_docs} | `{family.name}{TEACHER_FORCED_SUFFIX}` | {family.downloads or 'no'} |")
    return "\n".join(lines)
