"""Per-doc random generators derived with hashlib, never from `hash()` or global state.

Every doc gets its own generator, seeded from (family, data version, length, seed, index), so
a doc does not depend on which other docs were generated, on the process, on
PYTHONHASHSEED or on the data-parallel rank. The hash also covers a domain: evaluation docs
are drawn in `EVALUATION`, the training stream of `copy-tasks train` in its own, so no seed of
one can draw the other's docs.
"""

from __future__ import annotations

import hashlib

import numpy as np

EVALUATION = "copy-tasks"


def doc_rng(family: str, version: str, length: int, seed: int, index: int,
            domain: str = EVALUATION) -> np.random.Generator:
    """A numpy generator for one doc.

    >>> a = doc_rng("phonebook_copy", "1.0", 20, 1234, 0).integers(10**6)
    >>> b = doc_rng("phonebook_copy", "1.0", 20, 1234, 0).integers(10**6)
    >>> bool(a == b), bool(a == doc_rng("phonebook_copy", "1.0", 20, 1234, 1).integers(10**6))
    (True, False)
    """
    key = f"{domain}|{family}|{version}|{length}|{seed}|{index}".encode()
    digest = hashlib.sha256(key).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))
