"""What giving the question first is worth: per model, the exact match of a family that asks
before the text minus that of its twin that asks after it, at each length both ran.

A Transformer can look the answer up in either order; a model with a fixed-size state can keep
just what it was asked for when the question comes first, so its gap is large. The paper shows
it with trained models on the prefix-key against the suffix-key lookup (Figure 5); the phone
book with the name first (`phonebook_query_first`) shows it on pretrained ones.

    >>> row = lambda family, length, value: {"name": "m", "flags": "", "family": family, "variant": "generation",
    ...     "metric": "exact_match", "value": value, "stderr": "0", "length": length}
    >>> rows = [row("phonebook_query_first", "10", "1.0"), row("phonebook_copy", "10", "0.5"),
    ...         row("phonebook_query_first", "20", "0.75"), row("phonebook_copy", "20", "0.75")]
    >>> order_gaps(rows, ORDER_PAIRS[0])
    {'m': [(10, 0.5), (20, 0.0)]}

Only runs on the same docs are subtracted: the same seed, number of docs, chosen docs and family
options (`docs_drawn`); where the two families ran on other docs, the gap is None ("other docs").
"""

from __future__ import annotations

from typing import NamedTuple

from copy_tasks.probes.family import GENERATION
from copy_tasks.report.curves import curves
from copy_tasks.report.flags import split_flags
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.numbers import cell_length
from copy_tasks.report.series import family_options, series
from copy_tasks.report.table import as_written


class OrderPair(NamedTuple):
    """Two families of the same docs or task, the question asked before (`first`) and after
    (`last`) what it is about."""

    first: str
    last: str
    asked: str  # what comes first or last: "the name", "the key"


ORDER_PAIRS = (OrderPair("phonebook_query_first", "phonebook_copy", "the name"),
               OrderPair("lookup_prefix", "lookup_suffix", "the key"))


def docs_drawn(rows: list[dict], family: str) -> dict[tuple[str, int], tuple[str, ...]]:
    """(series, length) -> what decides the docs a family's generation run drew there: its seed,
    its number of docs, the docs `--samples` chose, its family options. Two families of a pair
    draw the same docs where these agree (the name-first book is the book's docs, the prefix-key
    lookup the suffix-key one's)."""
    drawn = {}
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) == (family, GENERATION, "exact_match"):
            own = split_flags(as_written(row["flags"]))[1].split(";")
            chosen = [flag for flag in own if flag.startswith("samples=")]
            drawn[(series(row), cell_length(row["length"]))] = (row.get("seed", ""), row.get("n", ""), *chosen,
                                                                family_options(row))
    return drawn


def order_gaps(rows: list[dict], pair: OrderPair) -> dict[str, list[tuple[int, float | None]]]:
    """series -> [(length, exact match asked first - asked last)] at the lengths where both
    families have a generation score under our rule (cut lengths left out, as in `curves`); the
    gap is None where the two ran on other docs (`docs_drawn`)."""
    first = curves(rows, pair.first, GENERATION, "exact_match")
    last = curves(rows, pair.last, GENERATION, "exact_match")
    docs_first, docs_last = docs_drawn(rows, pair.first), docs_drawn(rows, pair.last)
    gaps = {}
    for entry in sorted(set(first) & set(last)):
        later = {length: value for length, value, _ in last[entry]}
        if points := [(length, value - later[length] if docs_first.get((entry, length)) == docs_last.get(
                (entry, length)) else None) for length, value, _ in first[entry] if length in later]:
            gaps[entry] = points
    return gaps


OTHER_DOCS_NOTE = (" `other docs`: the model ran both there, but on other docs (another seed, number of docs or "
                   "format), so they are not compared.")


def gap_cell(gap: float | None) -> str:
    """A gap with its sign, or `other docs` where the two ran on other docs.

    >>> gap_cell(0.5), gap_cell(0.0), gap_cell(None)
    ('+0.50', '+0.00', 'other docs')
    """
    return "other docs" if gap is None else f"{gap:+.2f}"


def order_gap_markdown(rows: list[dict]) -> list[str]:
    """The summary's section on the order gaps, one table per pair that some model ran both of."""
    parts = []
    for pair in ORDER_PAIRS:
        gaps = order_gaps(rows, pair)
        if not gaps:
            continue
        lengths = sorted({length for points in gaps.values() for length, _ in points})
        parts += ["", f"## Asked first or last: {pair.first} minus {pair.last}", "",
                  f"Exact match (generation, our rule) with {pair.asked} given before the text minus with it after, "
                  "on the same docs, at each length the model ran both; positive: asking first helps. A model with a "
                  "fixed-size state can keep just what it is asked for when it is asked first; a model that attends "
                  "to the whole text need not store it to answer in either order." + OTHER_DOCS_NOTE * any(
                      gap is None for points in gaps.values() for _, gap in points), "",
                  "| model | " + " | ".join(map(str, lengths)) + " | mean |",
                  "|---|" + "---:|" * (len(lengths) + 1)]
        for entry, points in gaps.items():
            by_length = dict(points)
            cells = [gap_cell(by_length[length]) if length in by_length else "-" for length in lengths]
            compared = [gap for gap in by_length.values() if gap is not None]
            mean = f"{sum(compared) / len(compared):+.2f}" if compared else "-"
            parts.append("| " + " | ".join([markdown_text(entry), *cells, mean]) + " |")
    return parts
