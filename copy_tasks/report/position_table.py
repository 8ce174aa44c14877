"""Accuracy by where the answer sits, per model: the rows by third (`exact_match_beginning`...,
from the logged samples: `copy_tasks.report.positions`) pooled over the lengths run, for the
summary's section and the plots."""

from __future__ import annotations

from collections import defaultdict

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.numbers import cell_length, cell_number
from copy_tasks.report.positions import THIRDS, pooled
from copy_tasks.report.series import series


def position_table(rows: list[dict], family: str, metric: str = "exact_match") -> dict[str, dict[str, tuple]]:
    """series -> third -> (accuracy pooled over the lengths run, docs, those lengths) of one
    family's generation rows by position (`copy_tasks.report.positions`); empty when none.

    >>> rows = [{"name": "m", "flags": "", "family": "phonebook_copy", "variant": "generation",
    ...          "metric": "exact_match_end", "value": value, "n": n, "length": length}
    ...         for value, n, length in (("1.0", "2", "10"), ("0.25", "4", "20"))]
    >>> position_table(rows, "phonebook_copy")
    {'m': {'end': (0.5, 6, (10, 20))}}
    """
    gathered: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if (row["family"], row["variant"]) != (family, GENERATION):
            continue
        for third in THIRDS:
            if row["metric"] == f"{metric}_{third}":
                value, n, length = cell_number(row["value"]), cell_number(row["n"]), cell_length(row["length"])
                if value is not None and n is not None and length is not None:
                    gathered[series(row)][third].append((value, int(n), length))
    found = {}
    for entry, thirds in sorted(gathered.items()):
        found[entry] = {}
        for third in THIRDS:
            if points := thirds.get(third):
                mean, docs = pooled((value, n) for value, n, _ in points)
                found[entry][third] = (mean, docs, tuple(sorted(length for _, _, length in points)))
    return found


def position_markdown(rows: list[dict]) -> list[str]:
    """The summary's section on accuracy by where the answer sits, for each family whose logged
    samples say (the phone books, the passkey), under our rule."""
    parts = []
    for family in FAMILIES:
        table = position_table(rows, family)
        if not table:
            continue
        parts += ["", f"## {family}: exact match by where the answer sits", "",
                  "Our rule, from the logged samples: the docs split by where the answer sits in the text (the "
                  "queried entry in the book, the passkey's sentence; `query_depth`: first third, middle third, "
                  "last third), pooled over the lengths run (weighted by docs). A model that loses the middle "
                  "scores lower there.", "",
                  "| model | lengths | beginning | middle | end |", "|---|---|---:|---:|---:|"]
        for entry, thirds in table.items():
            run = sorted({length for _, _, lengths in thirds.values() for length in lengths})
            lengths = f"{run[0]}-{run[-1]}"
            cells = [f"{thirds[third][0]:.2f} (n={thirds[third][1]})" if third in thirds else "-" for third in THIRDS]
            parts.append("| " + " | ".join([markdown_text(entry), lengths, *cells]) + " |")
    return parts
