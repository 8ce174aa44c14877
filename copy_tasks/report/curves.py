"""A model's curve on a family (exact match against length, `curves`) and its two numbers:
effective length and the area under the curve (`Score`).

- effective length: the longest length up to which exact match stays at or above 50% (every
  shorter length the model ran passes too); `<L` when it already fails at the shortest length L;
- AUC: the area under exact match against log length, divided by the log-length span, so 1.0
  means perfect at every length.
Both are over the lengths the curve ran. Lengths at which any doc overflowed (the backend cut
its prompt; `overflow` above 0) are left out of both and of the plots, and named (`CUT`). Where
fewer than `FEW_DOCS` docs were scored at a length, the tables name them (`docs_behind`): a value
of 4 docs moves in steps of 0.25, which two decimals do not show.

    >>> effective_length([(20, 1.0), (50, 0.6), (100, 0.4), (200, 0.7)])
    50
    >>> round(area_under_curve([(10, 1.0), (100, 0.0)]), 3)
    0.5
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from copy_tasks.report.numbers import cell_length, cell_number
from copy_tasks.report.series import series

THRESHOLD = 0.5
# Fewer docs than this behind a value (one doc moves it by more than 0.05): the tables say how many.
FEW_DOCS = 20


CUT = "cut"  # a length at which some doc did not fit the backend's context


def overflowed(rows: list[dict], family: str, variant: str) -> dict[str, set[int]]:
    """series -> the lengths of a family and variant at which some doc overflowed."""
    found = defaultdict(set)
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) == (family, variant, "overflow"):
            value, length = cell_number(row["value"]), cell_length(row["length"])
            if value is not None and value > 0 and length is not None:
                found[series(row)].add(length)
    return found


def curves(rows: list[dict], family: str, variant: str, metric: str) -> dict[str, list[tuple[int, float, float]]]:
    """series (`series`: the model in its setting) -> [(length, value, stderr)] sorted by
    length; missing values and lengths that overflowed left out, missing stderr as 0."""
    cut = overflowed(rows, family, variant)
    found = defaultdict(list)
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) != (family, variant, metric):
            continue
        value, length = cell_number(row["value"]), cell_length(row["length"])
        if value is None or length is None or length in cut[series(row)]:
            continue
        stderr = cell_number(row["stderr"])
        found[series(row)].append((length, value, stderr if stderr is not None and stderr >= 0 else 0.0))
    return {model: sorted(points) for model, points in sorted(found.items())}


def docs_behind(rows: list[dict], family: str, variant: str, metric: str) -> dict[str, dict[int, int]]:
    """series -> length -> the docs behind the value of a family, variant and metric (the CSV's
    `n`), where the rows record them.

    >>> docs_behind([{"name": "m", "flags": "", "family": "random_copy", "variant": "generation",
    ...               "metric": "exact_match", "length": "10", "n": "4"}], "random_copy", "generation", "exact_match")
    {'m': {10: 4}}
    """
    found = defaultdict(dict)
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) == (family, variant, metric):
            docs, length = cell_number(row.get("n", "")), cell_length(row["length"])
            if docs is not None and docs >= 1 and length is not None:
                found[series(row)][length] = int(docs)
    return dict(found)


def effective_length(points: list[tuple[int, float]]) -> int | None:
    """The longest length up to which the value stays at or above the threshold; None when the
    shortest length already fails."""
    passed = None
    for length, value in sorted(points):
        if value < THRESHOLD:
            break
        passed = length
    return passed


def area_under_curve(points: list[tuple[int, float]]) -> float:
    """Trapezoids over log length, divided by the log-length span (one point: its value)."""
    points = sorted(points)
    if len(points) == 1:
        return points[0][1]
    area = sum((math.log(b[0]) - math.log(a[0])) * (a[1] + b[1]) / 2 for a, b in zip(points, points[1:]))
    return area / (math.log(points[-1][0]) - math.log(points[0][0]))


@dataclass(frozen=True)
class Score:
    """A model's numbers on one family under one rule: the (length, value) points it ran, the
    lengths left out because some doc overflowed, the tasks' own flags (as written), and the
    docs behind each point (empty: not recorded).

    >>> score = Score(((10, 1.0), (20, 0.4)), (50, 100))
    >>> score.effective, score.shown_effective, round(score.auc, 2), score.lengths, score.overflow_note
    (10, '10', 0.7, '10-20', 'overflow at 50, 100')
    >>> Score(((10, 0.2),)).shown_effective, Score((), (10,)).auc
    ('<10', None)
    >>> Score(((10, 1.0), (20, 0.5)), docs=(4, 4)).docs_note, Score(((10, 1.0),), docs=(200,)).docs_note
    ('4 docs per length', '')
    """

    points: tuple[tuple[int, float], ...]
    overflow: tuple[int, ...] = ()
    task_flags: str = ""
    docs: tuple[int, ...] = ()

    @property
    def effective(self) -> int | None:
        return effective_length(list(self.points)) if self.points else None

    @property
    def shown_effective(self) -> str:
        """The effective length as the tables show it: `<L` when the shortest length L fails,
        empty when no length was scored."""
        if not self.points:
            return ""
        return str(self.effective) if self.effective is not None else f"<{self.points[0][0]}"

    @property
    def auc(self) -> float | None:
        return area_under_curve(list(self.points)) if self.points else None

    @property
    def lengths(self) -> str:
        """The lengths run, first-last, as the page sorts by them (`data-range`)."""
        return f"{self.points[0][0]}-{self.points[-1][0]}" if self.points else ""

    @property
    def shown_lengths(self) -> str:
        """The lengths run as the tables write them: one length alone, not `100-100`.

        >>> Score(((100, 1.0),)).shown_lengths, Score(((10, 1.0), (20, 0.5))).shown_lengths
        ('100', '10-20')
        """
        if not self.points:
            return ""
        first, last = self.points[0][0], self.points[-1][0]
        return str(first) if first == last else f"{first}-{last}"

    @property
    def overflow_note(self) -> str:
        return "overflow at " + ", ".join(map(str, self.overflow)) if self.overflow else ""

    @property
    def few_docs(self) -> str:
        """The docs per length where some length had fewer than `FEW_DOCS` (`4`, or `4-20` where
        lengths differ), else empty."""
        if not self.docs or min(self.docs) >= FEW_DOCS:
            return ""
        fewest, most = min(self.docs), max(self.docs)
        return str(fewest) if fewest == most else f"{fewest}-{most}"

    @property
    def docs_note(self) -> str:
        return f"{self.few_docs} docs per length" if self.few_docs else ""
