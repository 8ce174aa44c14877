"""What every probe family must satisfy, as checks on one family (used by
`probes/test_family.py` over every registered family, by `probes/families/test_families.py`
for the names, and by `test_adding_a_family.py` on the toy family)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from copy_tasks.probes.budgets import MIN_GENERATION_TOKENS
from copy_tasks.probes.families import parse_task_name
from copy_tasks.probes.family import Family
from copy_tasks.probes.task_docs import generate_docs

DOCS = 6
HASH_DOCS = (
    "import hashlib, importlib, json, sys\n"
    "for name in json.loads(sys.argv[4]): importlib.import_module(name)\n"
    "from copy_tasks.probes.task_docs import generate_docs\n"
    "docs = generate_docs(sys.argv[1], int(sys.argv[2]), 3, 6, tuple(map(tuple, json.loads(sys.argv[3]))))\n"
    "print(hashlib.sha256(json.dumps(docs, sort_keys=True).encode()).hexdigest())"
)


def lengths_checked(family: Family) -> tuple[int, ...]:
    return family.lengths[:2]


def check_names(family: Family) -> None:
    """Lengths in order, at least the minimum, and task names that parse back to the family."""
    assert list(family.lengths) == sorted(set(family.lengths)) and family.lengths[0] >= family.min_length
    for length in family.lengths:
        for teacher_forced in (False, True):
            variant = "teacher_forced" if teacher_forced else "generation"
            assert parse_task_name(family.task_name(length, teacher_forced)) == (family.name, variant, length)


def check_docs(family: Family, options) -> None:
    """Every doc has its fields; a right answer scores 1 and an empty one 0 with the declared
    metrics; the budget fits every accepted answer; no stop sequence cuts a right answer."""
    for length in lengths_checked(family):
        for index, doc in enumerate(generate_docs(family.name, length, 1234, DOCS, options)):
            identity = (doc["family"], doc["length"], doc["unit"], doc["index"])
            assert identity == (family.name, length, family.unit, index)
            assert all(isinstance(doc[field], str) and doc[field] for field in ("prompt", "target", "continuation"))
            right = family.score_one_reading(doc["continuation"], doc)
            assert set(right) == {"exact_match", *family.partial_credit}
            assert right["exact_match"] == 1.0
            assert family.score_one_reading("", doc)["exact_match"] == 0.0
            assert family.generation_budget(doc) >= max(MIN_GENERATION_TOKENS, *(
                len(answer.encode()) for answer in family.answers(doc)))
            assert not any(stop in doc["continuation"] for stop in family.stop_sequences)


def check_doc_independence(family: Family, options) -> None:
    """Doc i depends on neither the doc count nor other docs; the seed matters."""
    length = lengths_checked(family)[-1]
    few = generate_docs(family.name, length, 1234, 3, options)
    assert few == generate_docs(family.name, length, 1234, 8, options)[:3]
    assert few != generate_docs(family.name, length, 1235, 3, options)


def check_determinism_across_processes(family: Family, options, modules: tuple[str, ...] = ()) -> None:
    """The same docs in fresh processes under different hash seeds (`modules` are imported
    first, for families declared outside the package)."""
    length = str(lengths_checked(family)[-1])
    outputs = {
        subprocess.run([sys.executable, "-c", HASH_DOCS, family.name, length, json.dumps(options),
                        json.dumps(list(modules))], capture_output=True, text=True, check=True,
                       env={"PYTHONHASHSEED": seed, "PYTHONPATH": ":".join(sys.path)}).stdout.strip()
        for seed in ("0", "1", "12345")
    }
    here = hashlib.sha256(json.dumps(generate_docs(family.name, int(length), 3, 6, options),
                                     sort_keys=True).encode()).hexdigest()
    assert outputs == {here}


COMMON_FIELDS = {"prompt", "target", "continuation", "family", "length", "unit", "seed", "index"}


def check_field_notes(family: Family, options) -> None:
    """Every field of the family's own has a note saying what it holds (the export's dataset
    card shows them), and every note is of a field the docs have."""
    notes = dict(family.field_notes)
    assert len(notes) == len(family.field_notes) and all(isinstance(note, str) and note for note in notes.values())
    for doc in generate_docs(family.name, lengths_checked(family)[0], 1234, 2, options):
        assert set(doc) - COMMON_FIELDS == set(notes), family.name


CHECKS = (check_docs, check_doc_independence, check_determinism_across_processes, check_field_notes)
