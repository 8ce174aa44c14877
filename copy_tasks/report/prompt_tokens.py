"""The summary's prompt-token tables: each length in the model's own tokens, where the runs
counted them (rows `prompt_tokens_mean` and `prompt_tokens_max`); not the reference models',
whose counts are of what they keep (`ngram_copier`: bytes), not tokens of a tokenizer."""

from __future__ import annotations

from collections import defaultdict

from copy_tasks.harness.model_info import REFERENCE_MODELS
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.numbers import cell_length, cell_number
from copy_tasks.report.series import series


def prompt_tokens(rows: list[dict], family: str) -> dict[str, dict[int, tuple[float, float | None]]]:
    """series -> length -> (mean, max) of a family's generation prompts in the backend's own
    tokens, where the runs recorded them (`prompt_tokens_mean`, `prompt_tokens_max`), but a
    reference model's (its backend in `REFERENCE_MODELS`).

    >>> rows = [{"name": "m", "flags": "", "family": "random_copy", "variant": "generation", "length": "10",
    ...          "metric": metric, "value": value} for metric, value in (("prompt_tokens_mean", "31.5"),
    ...                                                                 ("prompt_tokens_max", "40"))]
    >>> prompt_tokens(rows, "random_copy")
    {'m': {10: (31.5, 40.0)}}
    """
    found: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        if (row["family"], row["variant"]) == (family, GENERATION) and row.get("backend") not in REFERENCE_MODELS \
                and row["metric"] in ("prompt_tokens_mean", "prompt_tokens_max"):
            value, length = cell_number(row["value"]), cell_length(row["length"])
            if value is not None and length is not None:
                found[series(row)][length][row["metric"]] = value
    return {entry: {length: (values["prompt_tokens_mean"], values.get("prompt_tokens_max"))
                    for length, values in sorted(lengths.items()) if "prompt_tokens_mean" in values}
            for entry, lengths in sorted(found.items())}


def token_cell(tokens: tuple[float, float | None] | None) -> str:
    """`mean (max)` of a length's prompt tokens, `-` where not recorded.

    >>> token_cell((31.5, 40.0)), token_cell((31.5, None)), token_cell(None)
    ('32 (40)', '32', '-')
    """
    if tokens is None:
        return "-"
    mean, longest = tokens
    return f"{mean:.0f}" + ("" if longest is None else f" ({longest:.0f})")


def prompt_tokens_markdown(rows: list[dict]) -> list[str]:
    """Per family, each model's prompts in its own tokens at each length: `mean (max)`."""
    parts = []
    for family in FAMILIES:
        table = prompt_tokens(rows, family)
        if not table:
            continue
        lengths = sorted({length for values in table.values() for length in values})
        parts += ["", f"#### {family}: prompt tokens ({FAMILIES[family].unit} -> tokens, mean (max))", "",
                  "| model | " + " | ".join(map(str, lengths)) + " |", "|---|" + "---:|" * len(lengths)]
        for entry, values in table.items():
            cells = [token_cell(values.get(length)) for length in lengths]
            parts.append("| " + " | ".join([markdown_text(entry), *cells]) + " |")
    if parts:
        parts = ["", "### Prompt tokens", "",
                 "Each length in the model's own tokens (generation prompts, as the backend tokenized them): "
                 "read an effective length in tokens off these rows, to set it against a context or "
                 "against RULER's and BABILong's token lengths."] + parts
    return parts
