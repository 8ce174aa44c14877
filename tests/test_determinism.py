"""Every family's docs are identical across processes, hash seeds and doc counts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import source_options

from copy_tasks.probes.doc_sets import generate_docs
from copy_tasks.probes.families import FAMILIES

HASH_DOCS = (
    "import hashlib, json, sys; from copy_tasks.probes.doc_sets import generate_docs; "
    "options = tuple(json.loads(sys.argv[3])); "
    "docs = generate_docs(sys.argv[1], int(sys.argv[2]), 3, 20, tuple(map(tuple, options))); "
    "print(hashlib.sha256(json.dumps(docs, sort_keys=True).encode()).hexdigest())"
)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_identical_docs_across_processes_and_hash_seeds(family, local_sources):
    length, options = str(FAMILIES[family].lengths[1]), json.dumps(source_options(family, local_sources))
    outputs = {
        subprocess.run([sys.executable, "-c", HASH_DOCS, family, length, options],
                       capture_output=True, text=True, env={"PYTHONHASHSEED": seed}, check=True).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1 and len(outputs.pop().strip()) == 64


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_doc_i_does_not_depend_on_the_doc_count_and_seed_matters(family, local_sources):
    length = FAMILIES[family].lengths[1]
    options = source_options(family, local_sources)
    few = generate_docs(family, length, 1234, 3, options)
    assert few == generate_docs(family, length, 1234, 10, options)[:3]
    assert few != generate_docs(family, length, 1235, 3, options)
