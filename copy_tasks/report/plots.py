"""Every plot copy-tasks draws: the leaderboard's and the experiments'.

The leaderboard: one PNG per family and variant, a metric against length, one line per model,
stderr bars, length on a log axis (as the paper's Figures 1c and 7). Generation variants plot
exact match under our rule (`exact_match`; the summary also tables the authors');
teacher-forced ones plot bits per character of the target (lower is better), which separates
models even where exact match is 0. The experiments (training, the reference models' bound):
`line_plot` of a few `Line`s.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED, TEACHER_FORCED_SUFFIX
from copy_tasks.report.summary import curves

LEGEND_MODELS = 20  # more models than this: no legend (the CSV and summary name them)
PLOTTED = ((GENERATION, "exact_match", "exact match (our rule)", ""),
           (TEACHER_FORCED, "bits_per_char", "bits per character of the target (lower is better)",
            TEACHER_FORCED_SUFFIX))


def family_plot(rows: list[dict], family: str, variant: str, metric: str, label: str) -> bytes | None:
    """The PNG of one family and variant, or None when no row has that metric."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    found = curves(rows, family, variant, metric)
    if not found:
        return None
    figure, axes = pyplot.subplots(figsize=(8.0, 4.2), dpi=100)
    for model, points in found.items():
        lengths, values, errors = zip(*points)
        shown = model.replace("$", r"\$")  # a `$` would start matplotlib's mathtext: shown as itself
        axes.errorbar(lengths, values, yerr=errors, marker="o", markersize=4, capsize=3, label=shown)
    axes.set_xscale("log")
    axes.set_xlabel(f"length ({FAMILIES[family].unit})")
    axes.set_ylabel(label)
    if metric == "exact_match":
        axes.set_ylim(-0.05, 1.05)
    title = family + (" (teacher-forced)" if variant == TEACHER_FORCED else "")
    axes.grid(True, which="both", alpha=0.3)
    if len(found) <= LEGEND_MODELS:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        title += f" ({len(found)} models)"
    axes.set_title(title)
    figure.subplots_adjust(left=0.09, right=0.66, bottom=0.12, top=0.92)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    pyplot.close(figure)
    return buffer.getvalue()


def all_plots(rows: list[dict]) -> dict[str, bytes]:
    """File name -> PNG bytes, for every family and variant present in the rows."""
    plots = {}
    for family in FAMILIES:
        for variant, metric, label, suffix in PLOTTED:
            png = family_plot(rows, family, variant, metric, label)
            if png is not None:
                plots[f"{family}{suffix}.png"] = png
    return plots


@dataclass(frozen=True)
class Line:
    """One line of a `line_plot`: points with no value (None) are left out."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    dashed: bool = False
    markers_only: bool = False
    grey: bool = False


def line_plot(lines: Sequence[Line], xlabel: str, ylabel: str = "exact match", log_x: bool = False,
              legend_outside: bool = True) -> bytes:
    """A PNG of lines against a shared x axis, y from 0 to 1."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(7.5, 3.8), dpi=100)
    for line in lines:
        points = [(x, y) for x, y in zip(line.xs, line.ys) if y is not None]
        style = {"linestyle": "none" if line.markers_only else "--" if line.dashed else "-",
                 "marker": None if line.grey else "o", "markersize": 3}
        if line.grey:
            style["color"] = "grey"
        axes.plot([x for x, _ in points], [y for _, y in points], label=line.label.replace("$", r"\$"), **style)
    if log_x:
        axes.set_xscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_ylim(-0.05, 1.05)
    axes.grid(True, alpha=0.3)
    if legend_outside:
        axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        figure.subplots_adjust(left=0.09, right=0.66, bottom=0.14, top=0.95)
    else:
        axes.legend(fontsize=8)
        figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    pyplot.close(figure)
    return buffer.getvalue()
