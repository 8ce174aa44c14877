"""Every plot copy-tasks draws: the leaderboard's and the experiments'.

The leaderboard: one PNG per family and variant, a metric against length, one line per model
(one colour and marker per model across the plots; curves set slightly apart so that equal ones
stay visible), stderr bars, length on a log axis (as the paper's Figures 1c and 7) where the
lengths span a factor of 10, else on a linear one (n = 1 to 8). Each plots what a table ranks
(`PLOTTED`): generation, exact match under our rule (the summary also tables the authors');
teacher-forced, greedy exact match (`<family>_tf.png`); and beside it bits per character of the
teacher-forced target (`<family>_tf_bits_per_char.png`, lower is better), which separates models
even where exact match is 0. The experiments (training, the reference models' bound):
`line_plot` of a few `Line`s. And the state-size plot (`copy_tasks.report.state_axis`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import TEACHER_FORCED, TEACHER_FORCED_SUFFIX
from copy_tasks.report.curves import FEW_DOCS, curves, docs_behind
from copy_tasks.report.markdown import visible
from copy_tasks.report.memory_axis import PLOT_NAME as MEMORY_AXIS_PLOT
from copy_tasks.report.memory_axis import RECALL_PLOT_NAME, memory_axis_figure, recall_memory_figure
from copy_tasks.report.position_table import position_table
from copy_tasks.report.positions import THIRDS
from copy_tasks.report.score_table import OUR_RULE, TEACHER_FORCED_RULE, task_flags
from copy_tasks.report.series import series
from copy_tasks.report.state_axis import PLOT_NAME as STATE_SIZE_PLOT
from copy_tasks.report.state_axis import state_size_figure

LEGEND_MODELS = 20  # more models than this: no legend (the CSV and summary name them)
# (variant, metric, y label, file name suffix): the metrics the tables rank, as they rank them,
# then the teacher-forced target's bits per character.
PLOTTED = ((OUR_RULE.variant, OUR_RULE.metric, "exact match (our rule)", ""),
           (TEACHER_FORCED_RULE.variant, TEACHER_FORCED_RULE.metric, "exact match (teacher-forced)",
            TEACHER_FORCED_SUFFIX),
           (TEACHER_FORCED, "bits_per_char", "bits per character of the target (lower is better)",
            f"{TEACHER_FORCED_SUFFIX}_bits_per_char"))
# Ten colours and seven markers: 70 models before a pair repeats; a marker is also what tells
# two curves apart where they lie on each other.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LOG_SPAN = 10  # lengths spanning this factor or more go on a log axis; fewer (n = 1 to 8) on a linear one
# How far apart curves are set along x: in decades on a log axis, five times that in lengths on a
# linear one.
DODGE = 0.012


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str


def model_styles(rows: list[dict]) -> dict[str, Style]:
    """One colour and marker per model in its setting (`summary.series`), the same in every plot
    of the leaderboard: assigned in the order of the names, over all the rows.

    >>> styles = model_styles([{"name": "b", "flags": ""}, {"name": "a", "flags": ""}])
    >>> styles["a"], styles["b"]
    (Style(colour='#1f77b4', marker='o'), Style(colour='#ff7f0e', marker='s'))
    """
    names = sorted({series(row) for row in rows})
    return {name: Style(COLOURS[index % len(COLOURS)], MARKERS[index % len(MARKERS)])
            for index, name in enumerate(names)}


def shown_name(name: str) -> str:
    r"""A model's name as the page shows it (invisible characters as code points), with `$`
    kept from starting matplotlib's mathtext.

    >>> shown_name("a$b\u202e")
    'a\\$b\\u202e'
    """
    return visible(name).replace("$", r"\$")


def dodged(lengths: Sequence[int], index: int, count: int, log_axis: bool) -> list[float]:
    """The lengths of the `index`-th of `count` curves set slightly apart, so that curves with
    the same values (all at 1.0, or all at 0) stay visible side by side.

    >>> dodged([10, 100], 0, 1, True), dodged([1, 2], 1, 3, False)
    ([10.0, 100.0], [1.0, 2.0])
    """
    shift = (index - (count - 1) / 2) * DODGE
    return [length * 10 ** shift if log_axis else length + shift * 5 for length in lengths]


def family_figure(rows: list[dict], family: str, variant: str, metric: str, label: str,
                  styles: dict[str, Style] | None = None):
    """The figure of one family and variant (a matplotlib `Figure`), or None when no row has
    that metric. `styles`: every model's colour and marker (`model_styles`), so that a model
    looks the same in every plot."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    found = curves(rows, family, variant, metric)
    if not found:
        return None
    styles = styles or model_styles(rows)
    lengths_run = sorted({length for points in found.values() for length, _, _ in points})
    log_axis = lengths_run[-1] >= LOG_SPAN * lengths_run[0]
    figure, axes = pyplot.subplots(figsize=(8.0, 4.2), dpi=100)
    docs = docs_behind(rows, family, variant, metric)
    for index, (model, points) in enumerate(found.items()):
        lengths, values, errors = zip(*points)
        style = styles.get(model) or Style(COLOURS[0], MARKERS[0])
        axes.errorbar(dodged(lengths, index, len(found), log_axis), values, yerr=errors, color=style.colour,
                      marker=style.marker, markersize=5, capsize=3, alpha=0.85,
                      label=shown_name(model) + few_docs_label(docs.get(model, {})))
    if log_axis:
        axes.set_xscale("log")
    else:
        axes.set_xticks(lengths_run)
    axes.set_xlabel(f"length ({FAMILIES[family].unit})")
    axes.set_ylabel(label)
    if metric == "exact_match":
        axes.set_ylim(-0.05, 1.05)
    title = family + (" (teacher-forced)" if variant == TEACHER_FORCED else "") + shared_flags(rows, family, variant)
    axes.grid(True, which="both", alpha=0.3)
    if len(found) <= LEGEND_MODELS:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        title += f" ({len(found)} models)"
    axes.set_title(title)
    figure.subplots_adjust(left=0.09, right=0.66, bottom=0.12, top=0.92)
    return figure


def position_figure(rows: list[dict], family: str, styles: dict[str, Style] | None = None):
    """Exact match (our rule) against where the answer sits in the prompt (the thirds of
    `summary.position_table`), one line per model; None when the samples gave no positions."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    table = position_table(rows, family)
    if not table:
        return None
    styles = styles or model_styles(rows)
    figure, axes = pyplot.subplots(figsize=(8.0, 4.2), dpi=100)
    for index, (model, thirds) in enumerate(table.items()):
        shown = [(position, *thirds[third][:2]) for position, third in enumerate(THIRDS) if third in thirds]
        style = styles.get(model) or Style(COLOURS[0], MARKERS[0])
        xs = dodged([position for position, _, _ in shown], index, len(table), False)
        axes.plot(xs, [value for _, value, _ in shown], color=style.colour, marker=style.marker, markersize=5,
                  alpha=0.85, label=shown_name(model))
        for x, (_, value, n) in zip(xs, shown):  # the answers behind each point: 0.86 may be 6 of 7
            axes.annotate(f"n={n}", (x, value), textcoords="offset points", xytext=(4, -9), fontsize=6,
                          color=style.colour)
    axes.set_xticks(range(len(THIRDS)), [f"{third} third" for third in THIRDS])
    axes.set_xlabel("where the queried entry sits (query_depth)")
    axes.set_ylabel("exact match (our rule)")
    axes.set_ylim(-0.05, 1.05)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    logged = len(table)
    axes.set_title(f"{family}: exact match by position, pooled over lengths\n"
                   f"{logged} of the {len(models_run(rows, family))} models run on it: those whose runs logged "
                   "samples (--log_samples)", fontsize=10)
    figure.subplots_adjust(left=0.09, right=0.66, bottom=0.12, top=0.92)
    return figure


def shared_flags(rows: list[dict], family: str, variant: str) -> str:
    """The task flags every model plotted ran a family with, for the plot's title: what the
    whole plot is of (`c4_copy` on offline Wikipedia text: `copy_tasks_text_source=wikipedia`).

    >>> row = {"name": "m", "family": "c4_copy", "variant": "generation", "flags": "copy_tasks_text_source=wikipedia"}
    >>> shared_flags([row, {**row, "name": "n"}], "c4_copy", "generation")
    ' [copy_tasks_text_source=wikipedia]'
    >>> shared_flags([row, {**row, "name": "n", "flags": ""}], "c4_copy", "generation")
    ''
    """
    flags = set(task_flags(rows, family, variant).values())
    return f" [{flags.pop()}]" if len(flags) == 1 and "" not in flags else ""


def few_docs_label(docs: dict[int, int]) -> str:
    """What a legend adds to a model's name where a point rests on fewer than `FEW_DOCS` docs:
    a value of 4 docs moves in steps of 0.25.

    >>> few_docs_label({10: 4, 20: 4}), few_docs_label({10: 4, 20: 5}), few_docs_label({10: 100})
    (' (4 docs a point)', ' (4-5 docs a point)', '')
    """
    if not docs or min(docs.values()) >= FEW_DOCS:
        return ""
    fewest, most = min(docs.values()), max(docs.values())
    return f" ({fewest} docs a point)" if fewest == most else f" ({fewest}-{most} docs a point)"


def models_run(rows: list[dict], family: str) -> set[str]:
    """The series (a model in its setting) with a generation row of `family`."""
    return {series(row) for row in rows if (row["family"], row["variant"]) == (family, "generation")}


def png_of(figure) -> bytes:
    """A figure as PNG bytes, its legend whole (the image grows to hold it); the figure is closed."""
    from matplotlib import pyplot

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight")
    pyplot.close(figure)
    return buffer.getvalue()


def all_plots(rows: list[dict]) -> dict[str, bytes]:
    """File name -> PNG bytes, for every family and variant present in the rows; a model has
    one colour and marker in all of them."""
    styles = model_styles(rows)
    plots = {}
    for family in FAMILIES:
        for variant, metric, label, suffix in PLOTTED:
            figure = family_figure(rows, family, variant, metric, label, styles)
            if figure is not None:
                plots[f"{family}{suffix}.png"] = png_of(figure)
        if (figure := position_figure(rows, family, styles)) is not None:
            plots[f"{family}_by_position.png"] = png_of(figure)
    if (figure := state_size_figure(rows, {model: style.colour for model, style in styles.items()})) is not None:
        plots[STATE_SIZE_PLOT] = png_of(figure)
    for name, figure in ((MEMORY_AXIS_PLOT, memory_axis_figure(rows)), (RECALL_PLOT_NAME, recall_memory_figure(rows))):
        if figure is not None:
            plots[name] = png_of(figure)
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
              legend_outside: bool = True, y_range: tuple[float, float] | None = (-0.05, 1.05)) -> bytes:
    """A PNG of lines against a shared x axis, y from 0 to 1 (or `y_range`; None: the data's)."""
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
    if y_range is not None:
        axes.set_ylim(*y_range)
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
