"""The docs of every default task are the same bytes as when they were pinned: the first 5 docs
of each (doc i depends only on its index), the C4 and SQuAD families on the local stand-ins.
`docs_fingerprints.json` was written from the code before the package was reorganised and chat
mode added; a change that means to change docs bumps the family's data version and re-pins."""

from __future__ import annotations

import json

from conftest import TESTS

from copy_tasks.harness.task import docs_fingerprint
from copy_tasks.harness.yaml_functions import build_dataset
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import VARIANTS

PINNED = json.loads((TESTS / "docs_fingerprints.json").read_text())


def test_every_default_tasks_docs_are_the_pinned_bytes(local_sources):
    found = {}
    for family in FAMILIES.values():
        sources = {option.key: local_sources[option.argument] for option in family.options
                   if option.argument in local_sources}
        for length in family.lengths:
            for variant in VARIANTS:
                docs = build_dataset(family.name, length, variant, copy_tasks_seed=1234, copy_tasks_docs=5, **sources)
                found[family.task_name(length, variant != VARIANTS[0])] = docs_fingerprint(docs["test"])
    assert found == PINNED
