"""The state-size axis: how far a model with a fixed-size state recalls, against the bits of
that state.

Every model whose runs recorded `state_bits` and nothing growing (a state-space model or RNN,
measured from its cache; `bounded_state` from its budget: `copy_tasks.harness.state_size`) is a
point per family and
variant: its effective length (`summary.effective_length`, exact match under our rule for the
generation variant, greedy exact match for the teacher-forced one). The summary tables them,
and `plots/state_size.png` draws them, a panel per family that has something to compare
(`compared_families`: two models or more, or `random_copy`'s bound): each model a marker in its
colour of the other plots (hollow: teacher-forced), the budgets of `bounded_state` joined by a
line where there are two or more (what a reader that keeps exactly what fits reaches with those
bits), and on `random_copy` the longest string a state of B bits can copy by the paper's
Theorem 2.7 (`models.bounded_state.copy_bound_length`). An effective length under the shortest
length run is drawn at half that length (a downward marker); one that reaches the longest
length run is a lower bound (an upward marker). The legend names only what is drawn.

    >>> row = lambda model, bits, length, value: {"name": model, "flags": "", "family": "random_copy",
    ...     "variant": "generation", "metric": "exact_match", "value": value, "stderr": "0", "length": length,
    ...     "state_bits": bits}
    >>> rows = [row("bounded_state(bits=64)", "64", "10", "1.0"), row("bounded_state(bits=64)", "64", "20", "0.0")]
    >>> [(p.model, p.bits, p.score.effective) for p in state_points(rows)["random_copy"]]
    [('bounded_state(bits=64)', 64, 10)]
    >>> print(state_size_markdown(rows)[-1])
    | bounded_state\\(bits=64\\) | generation | 64 | 10 |
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from copy_tasks.models.bounded_state import copy_bound_length
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED, VARIANTS
from copy_tasks.report.curves import Score, curves
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.numbers import cell_number
from copy_tasks.report.series import series

PLOT_NAME = "state_size.png"
METRIC = "exact_match"
BOUNDED_STATE = "bounded_state"  # its backend, whatever a run's name shows it as
BOUND_FAMILY = "random_copy"  # where Theorem 2.7's bound applies as the paper states it


@dataclass(frozen=True)
class StatePoint:
    """One model (in its setting) on one family and variant, with its state's bits and the
    lm-eval backend it ran through (`bounded_state` is drawn as the budgets' line)."""

    model: str
    variant: str
    bits: int
    score: Score
    backend: str = ""

    @property
    def is_bounded_state(self) -> bool:
        return self.backend == BOUNDED_STATE


def recorded_bits(rows: list[dict]) -> dict[tuple[str, str, str], int]:
    """(series, family, variant) -> the state bits its rows record, where they record one value
    and nothing that grows with the prompt (a model with attention beside its state, or windows
    beside full attention, is read on the memory axis: `copy_tasks.report.memory_axis`)."""
    found = defaultdict(set)
    for row in rows:
        bits, growing = cell_number(row.get("state_bits", "")), cell_number(row.get("state_bits_per_token", ""))
        if bits is not None and bits > 0 and not growing:
            found[(series(row), row["family"], row["variant"])].add(int(bits))
    return {key: values.pop() for key, values in found.items() if len(values) == 1}


def state_points(rows: list[dict]) -> dict[str, list[StatePoint]]:
    """family -> the points of every model with a recorded state size, in family order."""
    bits_of = recorded_bits(rows)
    backend_of = {series(row): row.get("backend", "") for row in rows}  # one a series (`summary.kept_apart`)
    points = {}
    for family in FAMILIES:
        found = [StatePoint(model, variant, bits_of[(model, family, variant)],
                            Score(tuple((length, value) for length, value, _ in curve)), backend_of[model])
                 for variant in VARIANTS for model, curve in curves(rows, family, variant, METRIC).items()
                 if (model, family, variant) in bits_of and curve]
        if found:
            points[family] = sorted(found, key=lambda p: (p.variant, p.bits, p.model))
    return points


def compared_families(points: dict[str, list[StatePoint]]) -> dict[str, list[StatePoint]]:
    """The families of `state_points` whose panel compares something: points of two models or
    more (two budgets of `bounded_state` are two), or one against Theorem 2.7's bound. The main
    job runs `bounded_state` at one budget and nothing else with a state: one panel, the bound's."""
    return {family: found for family, found in points.items()
            if len({point.model for point in found}) >= 2 or family == BOUND_FAMILY}


def state_size_markdown(rows: list[dict]) -> list[str]:
    """The summary's section: per model and variant, its state bits and effective length on
    each family it ran; nothing when no run recorded a state size."""
    points = state_points(rows)
    if not points:
        return []
    families = list(points)
    table: dict[tuple[str, str, int], dict[str, str]] = defaultdict(dict)
    for family, found in points.items():
        for point in found:
            table[(point.model, point.variant, point.bits)][family] = point.score.shown_effective
    lines = ["", "## State size", "",
             "Models with a fixed-size state (the `state_bits` column: measured from the model's cache at each "
             "tensor's width, by hand for our LSTM, `bounded_state`'s budget) and their effective length per family "
             f"(exact match under our rule, teacher-forced: greedy exact match). `{BOUND_FAMILY}` is bounded by the "
             "paper's Theorem 2.7: a state of B bits copies at most 1 + (B + 1) / log2(26) random letters with "
             "probability 1/2 or more. A transformer has no such state and no row here. " + _plot_note(points), "",
             "| model | variant | state bits | " + " | ".join(families) + " |",
             "|---|---|---:|" + "---:|" * len(families)]
    for (model, variant, bits), cells in sorted(table.items(), key=lambda item: (item[0][1], item[0][2], item[0][0])):
        lines.append("| " + " | ".join([markdown_text(model), variant, f"{bits:,}",
                                        *(cells.get(family, "-") for family in families)]) + " |")
    return lines


def _plot_note(points: dict[str, list[StatePoint]]) -> str:
    """What the summary says of the plot: its file and how to read it, or why there is none."""
    if not compared_families(points):
        return (f"No plot: no family has two models with a state size to compare, nor is `{BOUND_FAMILY}` "
                "among them.")
    return (f"The plot: `plots/{PLOT_NAME}`, a panel per family with two models or more (or `{BOUND_FAMILY}`'s "
            "bound); a downward marker: below the shortest length run, drawn at half of it; an upward one: the "
            "longest length run reached, so at least that; hollow: teacher-forced.")


def _drawn_length(score: Score) -> tuple[float, str]:
    """Where a point sits on the length axis and its marker: `v` under the shortest length,
    `^` at the longest (at least that), `o` between."""
    shortest, longest = score.points[0][0], score.points[-1][0]
    if score.effective is None:
        return shortest / 2, "v"
    return score.effective, "^" if score.effective == longest else "o"


def plain_log_ticks(axis) -> None:
    """A log axis labelled in plain numbers (10, 100, 1,000: matplotlib wrote "2x10^2" and
    "6x10^-1"), and at 2 and 5 times a power of ten too where it spans less than two powers.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from matplotlib import pyplot
    >>> figure, axes = pyplot.subplots(); axes.set_yscale("log"); plain_log_ticks(axes.yaxis)
    >>> def shown(low, high):
    ...     _ = axes.set_ylim(low, high); figure.canvas.draw()
    ...     ticks = (*axes.get_yticklabels(), *axes.get_yticklabels(minor=True))
    ...     return [tick.get_text() for tick in ticks if low <= tick.get_position()[1] <= high and tick.get_text()]
    >>> shown(0.5, 2000), shown(3, 70)
    (['1', '10', '100', '1,000'], ['10', '5', '20', '50'])
    """
    from matplotlib.ticker import FuncFormatter, LogLocator

    def plain(value: float, _=None) -> str:
        return f"{value:,.0f}" if value >= 1 else f"{value:g}"

    def between(value: float, _=None) -> str:
        low, high = axis.get_view_interval()
        lead = round(value / 10 ** math.floor(math.log10(value)))
        return plain(value) if high / low < 100 and lead in (2, 5) else ""

    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(FuncFormatter(plain))
    axis.set_minor_formatter(FuncFormatter(between))


def state_size_figure(rows: list[dict], colours: dict[str, str] | None = None):
    """The state-size plot (a matplotlib `Figure`), or None when no family has anything to
    compare (`compared_families`). `colours`: each model's colour in the other plots."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    points = compared_families(state_points(rows))
    if not points:
        return None
    columns = min(3, len(points))
    rows_of_panels = -(-len(points) // columns)
    figure, grid = pyplot.subplots(rows_of_panels, columns, figsize=(4.2 * columns, 3.4 * rows_of_panels),
                                   dpi=100, squeeze=False)
    colours = colours or {}
    for axes, (family, found) in zip(grid.flat, points.items()):
        for variant, dashed in ((GENERATION, "-"), (TEACHER_FORCED, "--")):
            line = [p for p in found if p.is_bounded_state and p.variant == variant]
            if len(line) >= 2:
                axes.plot([p.bits for p in line], [_drawn_length(p.score)[0] for p in line], dashed, color="grey",
                          label=f"{BOUNDED_STATE}'s budgets ({variant})", zorder=1)
        for point in found:
            length, marker = _drawn_length(point.score)
            colour = colours.get(point.model, "#1f77b4")
            generated = point.variant == GENERATION  # teacher-forced: a larger ring on top, seen around it
            axes.plot([point.bits], [length], marker=marker, color=colour, linestyle="none",
                      markersize=6 if generated else 10, markerfacecolor=colour if generated else "none", alpha=0.8,
                      zorder=2 if generated else 3,
                      label=f"{point.model} ({point.variant})".replace("$", r"\$"))
        if family == BOUND_FAMILY:
            bits = sorted({p.bits for p in found})
            span = [bits[0] / 2, bits[-1] * 2]
            axes.plot(span, [copy_bound_length(b) for b in span], ":", color="black", label="Theorem 2.7 bound")
        axes.set_xscale("log")
        axes.set_yscale("log")
        plain_log_ticks(axes.yaxis)
        axes.set_title(family, fontsize=10)
        axes.set_xlabel("state bits")
        axes.set_ylabel(f"effective length ({FAMILIES[family].unit})")
        axes.grid(True, which="both", alpha=0.3)
    for axes in list(grid.flat)[len(points):]:
        axes.set_visible(False)
    handles = {}
    for axes in grid.flat:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    figure.legend(list(handles.values()), list(handles), fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    return figure
