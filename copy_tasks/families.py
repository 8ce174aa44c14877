"""The probe families: unit, lengths, default doc count, options and doc generator.

This table is the one source of truth for `copy-tasks list`, the dataset hook, the option
checks and the tests that check the YAML task folders against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from copy_tasks import copying, lookup, phonebook, squad
from copy_tasks.budgets import generation_budget
from copy_tasks.options import DOCS, SEED, ChoiceOption, IntOption, Option, SourceOption, parse_present
from copy_tasks.squad_scoring import score_squad
from copy_tasks.text_sources import C4, load_documents

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
    make_doc: Callable[..., dict] | None  # (rng, length, **options) -> doc
    score_generation: Callable[[str, dict], dict[str, float]]  # (generation, doc) -> metrics
    stop_sequences: tuple[str, ...]  # the generation's `until`, as in the family's YAML template
    # Families with the same data key draw identical random data for doc i.
    data_key: str = ""
    options: tuple[Option, ...] = field(default_factory=tuple)
    # Families that select docs from a dataset instead of drawing each one:
    # (length, seed, count, **options) -> up to `count` docs.
    make_docs: Callable[..., list[dict]] | None = None
    # The answers the generation scorer accepts, as the model would write them after the
    # prompt; the generation budget fits the longest (see `copy_tasks.budgets`).
    answers: Callable[[dict], Sequence[str]] = lambda doc: (doc["continuation"],)
    # The version of the data: doc i is drawn from (family, data_version, length, seed, i).
    # Bumped only when the docs change, never for a change of prompt handling or scoring
    # alone (that bumps the task version in the YAML).
    data_version: str = "1.0"

    def task_name(self, length: int, teacher_forced: bool = False) -> str:
        return f"{self.name}{TEACHER_FORCED_SUFFIX if teacher_forced else ''}_{length}"

    def generation_budget(self, doc: dict) -> int:
        """New tokens that fit every answer the scorer accepts, in any segmentation."""
        return generation_budget(self.answers(doc))

    @property
    def seed_key(self) -> str:
        return self.data_key or self.name


def against_target(score: Callable[[str, str], dict[str, float]]) -> Callable[[str, dict], dict[str, float]]:
    """A family's scorer from a function of (generation, the doc's target)."""
    return lambda generation, doc: score(generation, doc["target"])


LOOKUP_OPTIONS = (
    IntOption("copy_tasks_lookup_key_length", "key_length", "the key length n (letters)",
              default=4, minimum=1, maximum=16),
    IntOption("copy_tasks_lookup_answer_length", "answer_length", "the answer length k (letters)",
              default=4, minimum=1, maximum=16),
    ChoiceOption("copy_tasks_lookup_format", "fmt", "the lookup prompt format",
                 default="natural", choices=lookup.FORMATS),
)


def _lookup_family(key_place: str) -> Family:
    return Family(
        name=f"lookup_{key_place}",
        unit="letters",
        lengths=(20, 50, 100, 200, 500, 1000),
        default_docs=200,
        min_length=2,
        needs_download=False,
        make_doc=partial(lookup.make_lookup_doc, key_place=key_place),
        score_generation=against_target(lookup.score_lookup),
        stop_sequences=("\n", "."),
        data_key="lookup",
        options=LOOKUP_OPTIONS,
    )


TEXT_SOURCE = SourceOption(
    "copy_tasks_text_source", "text_source", "the natural-text source", default=C4,
    accepted="a .txt file, a folder of .txt files, or a folder saved by datasets' save_to_disk",
    load=load_documents,
)
SQUAD_SOURCE = SourceOption(
    "copy_tasks_squad_source", "squad_source", "the SQuAD v2 source", default=squad.SQUAD_V2,
    accepted="a SQuAD-format JSON file such as dev-v2.0.json, or a folder saved by datasets' save_to_disk",
    load=squad.load_paragraphs,
)


def _c4_family(name: str, make_doc: Callable[..., dict]) -> Family:
    return Family(
        name=name,
        unit="words",
        lengths=(25, 50, 100, 200, 500, 1000),
        default_docs=100,
        min_length=2,
        needs_download=True,
        make_doc=make_doc,
        score_generation=against_target(copying.score_copy),
        stop_sequences=("\n\n",),
        data_key="c4",
        options=(TEXT_SOURCE,),
    )


FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family(
            name="phonebook_copy",
            unit="entries",
            # Dense around the paper's crossover (Pythia-410M overtakes Mamba-2.8B at about
            # 70 entries; Mamba is below 20% by 100).
            lengths=(10, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000),
            default_docs=200,
            min_length=3,
            needs_download=False,
            make_doc=phonebook.make_phonebook_doc,
            score_generation=against_target(phonebook.score_generation),
            stop_sequences=("\n",),
        ),
        _c4_family("c4_copy", copying.make_c4_doc),
        _c4_family("c4_copy_shuffled", copying.make_c4_shuffled_doc),
        Family(
            name="random_copy",
            unit="symbols",
            lengths=(10, 20, 50, 100, 200, 500, 1000),
            default_docs=200,
            min_length=2,
            needs_download=False,
            make_doc=copying.make_random_copy_doc,
            score_generation=against_target(copying.score_copy),
            stop_sequences=("\n\n",),
        ),
        Family(
            name="dup_ngram_copy",
            unit="n",
            lengths=(1, 2, 3, 4, 5, 6, 7, 8),
            default_docs=200,
            min_length=1,
            needs_download=False,
            make_doc=copying.make_dup_ngram_doc,
            score_generation=against_target(copying.score_copy),
            stop_sequences=("\n\n",),
        ),
        _lookup_family("suffix"),
        _lookup_family("prefix"),
        Family(
            name="squad_length",
            unit="words",
            lengths=squad.BIN_EDGES,
            default_docs=100,
            min_length=1,
            needs_download=True,
            make_doc=None,
            score_generation=lambda generation, doc: score_squad(generation, doc["answers"]),
            stop_sequences=("\n",),
            options=(SQUAD_SOURCE,),
            make_docs=squad.make_squad_docs,
            answers=lambda doc: tuple(" " + answer for answer in doc["answers"]),
        ),
    )
}


TASK_NAME = re.compile(r"^(?P<family>.+?)(?P<tf>_tf)?_(?P<length>\d+)$")


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
    return match["family"], "teacher_forced" if match["tf"] else "generation", int(match["length"])


def family_named(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown family {name!r}; families are {', '.join(FAMILIES)}") from None


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
    """Validate the merged metadata of a task and fill in defaults.

    >>> task_settings(FAMILIES["lookup_suffix"], {"copy_tasks_seed": 3, "copy_tasks_lookup_format": "paper"})
    Settings(seed=3, docs=200, doc_options=(('key_length', 4), ('answer_length', 4), ('fmt', 'paper')))
    """
    given = parse_present(metadata, user_options())
    return Settings(
        seed=given.get(SEED.key, SEED.default),
        docs=given.get(DOCS.key, family.default_docs),
        doc_options=tuple(
            (option.argument, given.get(option.key, option.default)) for option in family.options
        ),
    )
