"""Per-doc random generators derived with hashlib, never from `hash()` or global state.

Every doc gets its own generator, seeded from (family, data version, length, seed, index), so
a doc does not depend on which other docs were generated, on the process, on
PYTHONHASHSEED or on the data-parallel rank. The hash also covers a domain: evaluation docs
are drawn in `EVALUATION`, the training stream of `copy-tasks train` in its own, so no seed of
one can draw the other's docs. The parts are joined with `|` (the encoding every published doc
was drawn with), so a part holding a `|` is refused: ("a|b", "c") and ("a", "b|c") would
share a stream.
"""

from __future__ import annotations

import hashlib

import numpy as np

EVALUATION = "copy-tasks"
SEPARATOR = "|"


def doc_rng(family: str, version: str, length: int, seed: int, index: int,
            domain: str = EVALUATION) -> np.random.Generator:
    """A numpy generator for one doc.

    >>> a = doc_rng("phonebook_copy", "1.0", 20, 1234, 0).integers(10**6)
    >>> b = doc_rng("phonebook_copy", "1.0", 20, 1234, 0).integers(10**6)
    >>> bool(a == b), bool(a == doc_rng("phonebook_copy", "1.0", 20, 1234, 1).integers(10**6))
    (True, False)
    >>> doc_rng("phonebook_copy", "1.0|2", 20, 1234, 0)
    Traceback (most recent call last):
    ValueError: doc_rng: version='1.0|2' holds '|', the separator of the key's parts: two keys could share a stream
    """
    parts = {"domain": domain, "family": family, "version": version, "length": length, "seed": seed, "index": index}
    for name, part in parts.items():
        if SEPARATOR in str(part):
            raise ValueError(f"doc_rng: {name}={part!r} holds {SEPARATOR!r}, the separator of the key's parts: "
                             "two keys could share a stream")
    key = SEPARATOR.join(str(part) for part in parts.values()).encode()
    digest = hashlib.sha256(key).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))
