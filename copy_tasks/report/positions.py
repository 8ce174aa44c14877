"""Accuracy by where the answer sits: a task's logged samples, split by the doc's `query_depth`
(the phone book's: 0 for the first entry of the book, 1 for the last) into thirds, as lm-eval's
phone-book proposal reports `acc_beginning`, `acc_middle` and `acc_end` (lost in the middle).

The leaderboard adds a row per metric and third, named `<metric>_<third>` (`exact_match_middle`),
whose `n` is the docs in that third; the summary pools them over lengths and plots them.

    >>> samples = [{"doc": {"query_depth": depth}, "exact_match": value}
    ...            for depth, value in ((0.0, 1.0), (0.2, 0.0), (0.4, 1.0), (0.5, 1.0), (0.8, 0.0), (1.0, 0.0))]
    >>> {third: (value, n) for third, (value, _, n) in position_metrics(samples, "exact_match").items()}
    {'beginning': (0.5, 2), 'middle': (1.0, 2), 'end': (0.0, 2)}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.report.numbers import finite_number

THIRDS = ("beginning", "middle", "end")
DEPTH_FIELD = "query_depth"


def third_of(depth: float) -> str:
    """The third of the book a depth in [0, 1] falls in: [0, 1/3), [1/3, 2/3), [2/3, 1].

    >>> [third_of(depth) for depth in (0.0, 0.33, 1 / 3, 0.66, 2 / 3, 1.0)]
    ['beginning', 'beginning', 'middle', 'middle', 'end', 'end']
    """
    return THIRDS[min(2, int(depth * 3))]


def position_metrics(samples: Iterable[Mapping[str, Any]], metric: str) -> dict[str, tuple[float, float, int]]:
    """third -> (mean of `metric`, its standard error, docs) over the samples whose doc has a
    `query_depth` in [0, 1] and a numeric `metric`; thirds with no doc are left out. The
    standard error is the samples' standard deviation over the square root of their count, as
    lm-eval's `mean` reports it (0 for one doc)."""
    values: dict[str, list[float]] = {third: [] for third in THIRDS}
    for sample in samples:
        if not isinstance(sample, Mapping):
            continue
        doc = sample.get("doc")
        depth = finite_number(doc.get(DEPTH_FIELD), largest=math.inf) if isinstance(doc, Mapping) else None
        value = finite_number(sample.get(metric), largest=math.inf)
        if depth is not None and 0.0 <= depth <= 1.0 and value is not None:
            values[third_of(depth)].append(value)
    found = {}
    for third, scores in values.items():
        if scores:
            mean = sum(scores) / len(scores)
            spread = (sum((score - mean) ** 2 for score in scores) / (len(scores) - 1)) if len(scores) > 1 else 0.0
            found[third] = (mean, math.sqrt(spread / len(scores)), len(scores))
    return found


def pooled(points: Iterable[tuple[float, int]]) -> tuple[float, int] | None:
    """(mean, docs) of per-length means weighted by their docs, or None for no docs.

    >>> pooled([(1.0, 2), (0.25, 4)])
    (0.5, 6)
    """
    points = [(value, n) for value, n in points if n > 0]
    total = sum(n for _, n in points)
    return (sum(value * n for value, n in points) / total, total) if total else None
