"""The probe families: their unit, lengths, default doc count and doc generator.

This table is the one source of truth for `copy-tasks list`, the dataset hook and the tests
that check the YAML task folders against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from copy_tasks.phonebook import make_phonebook_doc
from copy_tasks.phonebook import score_generation as phonebook_score

TEACHER_FORCED_SUFFIX = "_tf"


@dataclass(frozen=True)
class Family:
    """One probe family. Task `<name>_<length>`, teacher-forced task `<name>_tf_<length>`."""

    name: str
    unit: str
    lengths: tuple[int, ...]
    default_docs: int
    min_length: int
    needs_download: bool
    # Most new tokens any answer can need (one token is at least one byte).
    generation_budget: int
    make_doc: Callable[[np.random.Generator, int], dict]
    score_generation: Callable[[str, str], dict[str, float]]

    def task_name(self, length: int, teacher_forced: bool = False) -> str:
        return f"{self.name}{TEACHER_FORCED_SUFFIX if teacher_forced else ''}_{length}"


FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family(
            name="phonebook_copy",
            unit="entries",
            lengths=(20, 50, 100, 200, 500, 1000),
            default_docs=200,
            min_length=3,
            needs_download=False,
            # " " + 10 digits + "\n": 12 bytes, so at most 12 tokens; 16 leaves room.
            generation_budget=16,
            make_doc=make_phonebook_doc,
            score_generation=phonebook_score,
        ),
    )
}


def family_named(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown family {name!r}; families are {', '.join(FAMILIES)}") from None
