"""The per-length tables: each rule's families length by length (`LengthTable`), from the same
scores as its table (`copy_tasks.report.score_table`), for the summary and the page. A value
scored on fewer than `curves.FEW_DOCS` docs names them (`0.75 (3/4)`: it moves in steps of 1/4)."""

from __future__ import annotations

from dataclasses import dataclass

from copy_tasks.probes.families import FAMILIES
from copy_tasks.report.curves import FEW_DOCS
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.score_table import ScoreTable, TableRow


@dataclass(frozen=True)
class LengthTable:
    """One family under one rule, length by length: the lengths any row ran (columns) and each
    row's value per length (absent: not run; `CUT`: some doc overflowed there), with the docs
    behind each value where the rows record them."""

    family: str
    lengths: tuple[int, ...]
    rows: tuple[tuple[TableRow, dict[int, float | str], dict[int, int]], ...]

    def mean(self, values: dict[int, float | str]) -> tuple[float, str] | None:
        """A row's mean over the lengths it was scored at (as RULER averages over lengths), and
        those lengths when they are not all of the table's; None when none was scored.

        >>> from copy_tasks.report.curves import CUT
        >>> table = LengthTable("random_copy", (10, 20, 50), ())
        >>> table.mean({10: 1.0, 20: 0.5, 50: 0.0}), table.mean({10: 1.0, 20: 0.5, 50: CUT})
        ((0.5, ''), (0.75, '10-20'))
        >>> table.mean({10: 1.0, 20: CUT})  # one length: 10, not 10-10
        (1.0, '10')
        """
        scored = sorted(length for length, value in values.items() if isinstance(value, float))
        if not scored:
            return None
        mean = sum(float(values[length]) for length in scored) / len(scored)
        if tuple(scored) == self.lengths:
            return mean, ""
        return mean, str(scored[0]) if len(scored) == 1 else f"{scored[0]}-{scored[-1]}"


def length_tables(table: ScoreTable) -> list[LengthTable]:
    """One `LengthTable` per family of a rule's table, from the same scores the table shows."""
    found = []
    for family in table.families:
        values, docs = table.every_length[family], table.docs.get(family, {})
        per_row = tuple((row, values[row.entry], docs.get(row.entry, {})) for row in table.rows if row.entry in values)
        lengths = tuple(sorted({length for _, values, _ in per_row for length in values}))
        found.append(LengthTable(family, lengths, per_row))
    return found


FEW_DOCS_NOTE = (f"a value scored on fewer than {FEW_DOCS} docs names how many were right of how many "
                 "(`0.75 (3/4)`: with 4 docs a value moves in steps of 0.25);")


def length_cell(value: float | str | None, docs: int | None = None) -> str:
    """A value of a per-length table: two decimals, with the docs right of all where they are
    fewer than `FEW_DOCS`; `cut` (some doc overflowed), `-` (not run).

    >>> from copy_tasks.report.curves import CUT
    >>> length_cell(0.125), length_cell(0.75, 4), length_cell(0.5, 200), length_cell(CUT), length_cell(None)
    ('0.12', '0.75 (3/4)', '0.50', 'cut', '-')
    """
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    few = f" ({round(value * docs)}/{docs})" if docs is not None and docs < FEW_DOCS else ""
    return f"{value:.2f}{few}"


def mean_cell(mean: tuple[float, str] | None) -> str:
    """A row's mean, with its lengths when they are not all of the table's.

    >>> mean_cell((0.75, "10-20")), mean_cell((0.5, "")), mean_cell(None)
    ('0.75 (10-20)', '0.50', '-')
    """
    if mean is None:
        return "-"
    value, lengths = mean
    return f"{value:.2f}" + (f" ({lengths})" if lengths else "")


def length_table_markdown(table: LengthTable) -> str:
    """A Markdown table: a row per model, a column per length, then the row's mean."""
    header = ["model", "flags", *map(str, table.lengths), "mean"]
    lines = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(table.lengths) + 1)]
    for row, values, docs in table.rows:
        cells = [length_cell(values.get(length), docs.get(length)) for length in table.lengths]
        lines.append("| " + " | ".join([markdown_text(row.model), markdown_text(row.setting) or "-", *cells,
                                        mean_cell(table.mean(values))]) + " |")
    return "\n".join(lines)


def per_length_markdown(tables: list[ScoreTable]) -> list[str]:
    """The summary's per-length section: each rule's tables, family by family."""
    parts = ["", "## Per length", "",
             f"Exact match at each length, under each table's rule; {FEW_DOCS_NOTE} `cut`: some doc did not fit "
             "the backend's context there (left out of the numbers above); `-`: not run. The mean is over the "
             "lengths the row was scored at, named beside it when they are not all of the table's: means "
             "over different lengths are not comparable."]
    for table in tables:
        parts += ["", f"### {table.rule.title}"]
        for lengths in length_tables(table):
            parts += ["", f"#### {lengths.family} ({FAMILIES[lengths.family].unit})", "",
                      length_table_markdown(lengths)]
    return parts
