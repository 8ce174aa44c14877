"""Per-doc generators (`copy_tasks.probes.seeding`): a doc's random stream is fixed by (domain,
family, data version, length, seed, index) alone, the same in every process whatever its
PYTHONHASHSEED or global random state, and a change to any one of them, the training domain
included, gives another stream."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.seeding import EVALUATION, doc_rng

KEY = {"family": "phonebook_copy", "version": "1.0", "length": 20, "seed": 1234, "index": 0}
# The first draws of that doc's stream: the docs of every published run hang on them (a change
# here changes every doc, and must come with a new data version).
PINNED_DRAWS = [846403, 100561, 235197]

DRAW_IN_A_FRESH_PROCESS = (
    "import random, sys\n"
    "import numpy as np\n"
    "random.seed(int(sys.argv[1])); np.random.seed(int(sys.argv[1]))\n"
    "from copy_tasks.probes.seeding import doc_rng\n"
    "print(doc_rng('phonebook_copy', '1.0', 20, 1234, 0).integers(10**6, size=3).tolist())"
)


def first_draws(rng: np.random.Generator) -> list[int]:
    return rng.integers(10**6, size=3).tolist()


def test_a_docs_stream_is_pinned():
    assert first_draws(doc_rng(**KEY)) == PINNED_DRAWS


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_a_docs_stream_is_the_same_in_every_process(hash_seed):
    result = subprocess.run([sys.executable, "-c", DRAW_IN_A_FRESH_PROCESS, hash_seed], capture_output=True,
                            text=True, check=True, env=dict(os.environ, PYTHONHASHSEED=hash_seed))
    assert result.stdout.strip() == str(PINNED_DRAWS)


def test_a_docs_stream_does_not_depend_on_the_docs_drawn_before_it():
    for index in range(3):
        doc_rng(**{**KEY, "index": index}).integers(10**6, size=1000)
    assert first_draws(doc_rng(**KEY)) == PINNED_DRAWS


def test_evaluation_docs_are_drawn_in_the_evaluation_domain():
    assert EVALUATION == "copy-tasks"
    assert first_draws(doc_rng(**KEY, domain="copy-tasks")) == PINNED_DRAWS


@pytest.mark.parametrize(("field", "other"), [
    ("family", "random_copy"),
    ("version", "1.1"),
    ("length", 21),
    ("seed", 1235),
    ("index", 1),
    ("domain", "copy-tasks-training/phonebook"),
])
def test_every_part_of_the_key_changes_the_stream(field, other):
    assert first_draws(doc_rng(**{**KEY, field: other})) != PINNED_DRAWS


@pytest.mark.parametrize("field", ["family", "version", "length", "seed", "index", "domain"])
def test_a_key_part_holding_the_separator_is_refused(field):
    """Joined with "|", ("a|b", "c") and ("a", "b|c") were one key, so one stream."""
    with pytest.raises(ValueError, match=re.escape(f"doc_rng: {field}='x|y' holds '|', the separator")):
        doc_rng(**{**KEY, field: "x|y"})
    with pytest.raises(ValueError, match=re.escape("family='phonebook_copy|1.0' holds")):
        doc_rng(**{**KEY, "family": "phonebook_copy|1.0", "version": ""})


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), index=st.integers(0, 10**9))
def test_any_seed_and_index_give_a_stream_of_their_own(seed, index):
    stream = doc_rng("random_copy", "1", 50, seed, index).integers(2**63, size=2).tolist()
    assert doc_rng("random_copy", "1", 50, seed, index).integers(2**63, size=2).tolist() == stream
    assert doc_rng("random_copy", "1", 50, seed, index + 1).integers(2**63, size=2).tolist() != stream
