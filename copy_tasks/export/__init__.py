"""`copy-tasks export`: the docs our lm-eval tasks score, as a Hugging Face `datasets` folder.

One config per family (named like the family's lm-eval group: `phonebook_copy`, or
`phonebook_copy_tf` for the teacher-forced variant), one split per length (`length_10`), one
Parquet file per split (`phonebook_copy/length_10.parquet`), and a dataset card (`README.md`)
whose YAML header names the files, so that `datasets.load_dataset(DIR, "phonebook_copy")`
reads it offline and the hub shows it. The rows are those of `copy_tasks.probes.task_docs`:
the same docs, the same `copy_tasks_*` options and defaults as the tasks, so each split's
`docs_fingerprint` is the `copy_tasks_docs_sha256` an lm-eval run of that task records.

    >>> [(split.config, split.name, len(split.rows)) for split in plan(["random_copy"], [10, 20], "generation",
    ...                                                                   {"copy_tasks_docs": 3})]
    [('random_copy', 'length_10', 3), ('random_copy', 'length_20', 3)]

Everything is checked and every doc drawn before a file is written (`plan`); the folder
module (`copy_tasks.export.folder`) refuses, before that, a folder it did not write, and the
card module (`copy_tasks.export.card`) writes the dataset card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from copy_tasks.probes.families import family_named, user_options
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED_SUFFIX, Family
from copy_tasks.probes.options import PREFIX, UserError
from copy_tasks.probes.run_checks import check_families
from copy_tasks.probes.task_docs import docs_fingerprint, task_rows


@dataclass(frozen=True)
class Split:
    """The docs of one task: a split `length_<L>` of the config named like the family's group."""

    family: Family
    variant: str
    length: int
    rows: list[dict]

    @property
    def config(self) -> str:
        return self.family.name + ("" if self.variant == GENERATION else TEACHER_FORCED_SUFFIX)

    @property
    def name(self) -> str:
        return f"length_{self.length}"

    @property
    def path(self) -> str:
        """The Parquet file, relative to the export's folder."""
        return f"{self.config}/{self.name}.parquet"

    @property
    def sha256(self) -> str:
        return docs_fingerprint(self.rows)

    @cached_property
    def dataset(self):
        """The rows as a `datasets.Dataset`, typed as lm-eval's tasks type them."""
        import datasets

        return datasets.Dataset.from_list(self.rows)


def _check_lengths(family: Family, lengths: Sequence[int]) -> None:
    if family.select_docs is not None and (fixed := [length for length in lengths if length not in family.lengths]):
        raise UserError(f"{family.name} has no length {fixed[0]}: it selects its docs from a dataset in fixed bins "
                        f"({', '.join(map(str, family.lengths))})")


def plan(families: Sequence[str], lengths: Sequence[int] | None, variant: str,
         metadata: Mapping[str, Any]) -> list[Split]:
    """Every split of an export, its docs drawn: each family at `lengths` (None: the family's
    own), with the tasks' `--metadata` options. Raises UserError (a KeyError for an unknown
    family) naming the bad value and what is allowed."""
    if not families:
        raise UserError("no family given: give comma-separated family names (copy-tasks list), e.g. phonebook_copy")
    if twice := sorted({name for name in families if list(families).count(name) > 1}):
        raise UserError(f"{', '.join(twice)} named more than once: give each family once")
    if lengths is not None and not lengths:
        raise UserError("no lengths given: give comma-separated lengths in the family's unit, e.g. 10,20")
    if stray := [key for key in metadata if not key.startswith(PREFIX)]:
        raise UserError(f"metadata key {stray[0]!r} is not a copy-tasks option: the docs take "
                        f"{', '.join(sorted(user_options()))}")
    splits = []
    for name in families:
        family = family_named(name)
        chosen = list(dict.fromkeys(family.length_option().parse(length) for length in lengths or family.lengths))
        _check_lengths(family, chosen)
        check_families(metadata, {family: chosen})
        for length in chosen:
            try:
                rows = task_rows(family.name, length, variant, metadata)
            except UserError:
                raise
            except ValueError as error:
                raise UserError(f"length {length} is not possible for {family.name}: {error}") from None
            splits.append(Split(family, variant, length, rows))
    return splits


def export(families: Sequence[str], lengths: Sequence[int] | None, variant: str, metadata: Mapping[str, Any],
           out: Path) -> list[Split]:
    """Write the splits of `plan(...)`, their dataset card and our marker into `out`, after
    checking that `out` holds nothing but an earlier export; returns the splits written."""
    from copy_tasks.export.card import dataset_card
    from copy_tasks.export.folder import earlier_files, write_export

    earlier = earlier_files(out)
    splits = plan(families, lengths, variant, metadata)
    write_export(out, splits, dataset_card(splits, metadata, Path(out).name), earlier)
    return splits
