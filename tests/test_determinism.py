"""Every family's docs are identical across processes, hash seeds and doc counts."""

from __future__ import annotations

import subprocess
import sys

import pytest
from text_corpus import write_corpus

from copy_tasks.docs import generate_docs
from copy_tasks.families import FAMILIES

HASH_DOCS = (
    "import hashlib, json, sys; from copy_tasks.docs import generate_docs; "
    "options = tuple(json.loads(sys.argv[3])); "
    "docs = generate_docs(sys.argv[1], '1.0', int(sys.argv[2]), 3, 20, tuple(map(tuple, options))); "
    "print(hashlib.sha256(json.dumps(docs, sort_keys=True).encode()).hexdigest())"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"))


def options_for(family: str, corpus) -> str:
    return f'[["text_source", "{corpus}"]]' if FAMILIES[family].options and family.startswith("c4") else "[]"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_identical_docs_across_processes_and_hash_seeds(family, corpus):
    length = str(FAMILIES[family].lengths[1])
    outputs = {
        subprocess.run([sys.executable, "-c", HASH_DOCS, family, length, options_for(family, corpus)],
                       capture_output=True, text=True, env={"PYTHONHASHSEED": seed}, check=True).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1 and len(outputs.pop().strip()) == 64


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_doc_i_does_not_depend_on_the_doc_count_and_seed_matters(family, corpus):
    length = FAMILIES[family].lengths[1]
    options = (("text_source", str(corpus)),) if family.startswith("c4") else ()
    few = generate_docs(family, "1.0", length, 1234, 3, options)
    assert few == generate_docs(family, "1.0", length, 1234, 10, options)[:3]
    assert few != generate_docs(family, "1.0", length, 1235, 3, options)
