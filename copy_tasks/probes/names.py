"""Census-frequency-weighted person names, drawn as the `names` package draws them.

The tables in `data/` are the 1990 US Census name-frequency lists (public domain) that the
authors' `names` package ships: first names by sex and last names, with cumulative
frequencies in percent. Like that package we draw a sex with probability 1/2, then a name by
a uniform draw u in [0, 90) and take the first name whose cumulative frequency exceeds u, so
each name comes up in proportion to its census frequency; rows past 90% are never drawn and
are not stored.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

CUMULATIVE_CUTOFF = 90.0


@dataclass(frozen=True)
class NameTable:
    """Names and their cumulative census frequency (percent), in census rank order."""

    names: np.ndarray
    cumulative: np.ndarray

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """`count` names, each drawn with its census frequency."""
        picks = rng.random(count) * CUMULATIVE_CUTOFF
        return self.names[np.searchsorted(self.cumulative, picks, side="right")]


@cache
def _table(filename: str) -> NameTable:
    raw = resources.files("copy_tasks.probes").joinpath("data", filename).read_bytes()
    rows = [line.split("\t") for line in gzip.decompress(raw).decode().splitlines()]
    return NameTable(
        names=np.array([name for name, _ in rows], dtype=object),
        cumulative=np.array([float(cum) for _, cum in rows]),
    )


def first_names(sex: str) -> NameTable:
    return _table(f"census1990_first_{sex}.tsv.gz")


def last_names() -> NameTable:
    return _table("census1990_last.tsv.gz")


def draw_full_names(rng: np.random.Generator, count: int) -> list[str]:
    """`count` full names ("First Last"), not necessarily distinct.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> names = draw_full_names(doc_rng("example", "1", 3, 0, 0), 3)
    >>> len(names), all(len(n.split()) == 2 for n in names)
    (3, True)
    """
    female = rng.random(count) < 0.5
    firsts = np.empty(count, dtype=object)
    firsts[female] = first_names("female").draw(rng, int(female.sum()))
    firsts[~female] = first_names("male").draw(rng, count - int(female.sum()))
    return list(map(" ".join, zip(firsts.tolist(), last_names().draw(rng, count).tolist())))
