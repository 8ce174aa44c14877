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
"""

from __future__ import annotations

from typing import NamedTuple

from copy_tasks.probes.family import GENERATION
from copy_tasks.report.summary import curves, markdown_text


class OrderPair(NamedTuple):
    """Two families of the same docs or task, the question asked before (`first`) and after
    (`last`) what it is about."""

    first: str
    last: str
    asked: str  # what comes first or last: "the name", "the key"


ORDER_PAIRS = (OrderPair("phonebook_query_first", "phonebook_copy", "the name"),
               OrderPair("lookup_prefix", "lookup_suffix", "the key"))


def order_gaps(rows: list[dict], pair: OrderPair) -> dict[str, list[tuple[int, float]]]:
    """series -> [(length, exact match asked first - asked last)] at the lengths where both
    families have a generation score under our rule (cut lengths left out, as in `curves`)."""
    first = curves(rows, pair.first, GENERATION, "exact_match")
    last = curves(rows, pair.last, GENERATION, "exact_match")
    gaps = {}
    for entry in sorted(set(first) & set(last)):
        later = {length: value for length, value, _ in last[entry]}
        if points := [(length, value - later[length]) for length, value, _ in first[entry] if length in later]:
            gaps[entry] = points
    return gaps


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
                  "to the whole text need not store it to answer in either order.", "",
                  "| model | " + " | ".join(map(str, lengths)) + " | mean |",
                  "|---|" + "---:|" * (len(lengths) + 1)]
        for entry, points in gaps.items():
            by_length = dict(points)
            cells = [f"{by_length[length]:+.2f}" if length in by_length else "-" for length in lengths]
            mean = sum(by_length.values()) / len(by_length)
            parts.append("| " + " | ".join([markdown_text(entry), *cells, f"{mean:+.2f}"]) + " |")
    return parts
