"""How many of a doc's questions a model answers, for the families that ask several (`mqar`):
the summary's table of `query_accuracy` per model, variant and length.

A doc's `exact_match` asks for every one of its 8 queries, so it falls to 0 well before a model
stops recalling; the fraction of queries answered shows how far recall reaches, and for a model
with a fixed-size state how many pairs it kept (`bounded_state` keeps the first `capacity(B)`).

    >>> row = lambda variant, length, value: {"name": "m", "flags": "", "family": "mqar", "variant": variant,
    ...     "metric": "query_accuracy", "value": value, "stderr": "0", "length": length}
    >>> print("\\n".join(query_accuracy_markdown([row("generation", "8", "1.0"), row("generation", "16", "0.5")])[-1:]))
    | m | generation | 1.00 | 0.50 |
"""

from __future__ import annotations

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import QUERY_ACCURACY, VARIANTS
from copy_tasks.report.curves import curves
from copy_tasks.report.markdown import markdown_text


def query_accuracy_markdown(rows: list[dict]) -> list[str]:
    """The summary's section on the fraction of questions answered, one table per family of
    several questions that some model ran."""
    parts = []
    for family in (family for family in FAMILIES.values() if family.queries is not None):
        found = {(entry, variant): points for variant in VARIANTS
                 for entry, points in curves(rows, family.name, variant, QUERY_ACCURACY).items()}
        if not found:
            continue
        lengths = sorted({length for points in found.values() for length, _, _ in points})
        parts += ["", f"## Queries answered: {family.name} ({family.unit})", "",
                  f"`{QUERY_ACCURACY}`: the fraction of a doc's questions answered right (a doc's exact match asks "
                  "for all of them), per length.", "",
                  "| model | variant | " + " | ".join(map(str, lengths)) + " |",
                  "|---|---|" + "---:|" * len(lengths)]
        for (entry, variant), points in sorted(found.items()):
            by_length = {length: value for length, value, _ in points}
            cells = [f"{by_length[length]:.2f}" if length in by_length else "-" for length in lengths]
            parts.append("| " + " | ".join([markdown_text(entry), variant, *cells]) + " |")
    return parts
