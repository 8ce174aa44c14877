"""Recall against memory: the axis the field reads (Zoology, Based), every model at the bits it
keeps at each length it ran, next to its accuracy.

A model's memory at a task is what a run of it recorded it keeps that does not grow
(`state_bits`) plus what grows per token (`state_bits_per_token`) times the task's prompt tokens
(its `prompt_tokens_mean` row): a transformer's keys and values at that prompt, a fixed state the
same at every length (`memory_points`). A model keeps the same whatever the task, so its rows
from runs before memory was measured take the memory a later run of it (same dtype and backend)
recorded (`model_memory`). An analytic model is at its own count (`bounded_state` at its budget,
`ngram_copier` at its prompt's text, 8 bits a byte); runs from before memory or prompt tokens were
recorded get them afterwards (`copy_tasks.experiments.memory_afterwards`, `prompt_tokens_afterwards`);
a model that recorded none is left out, and the summary names it.

- `plots/memory_axis.png`: a panel per family, accuracy (generation: exact match under our rule;
  `mqar`: query accuracy, teacher-forced where the model ran it) against bits on a log axis, one
  colour per architecture, each model a line over its lengths;
- `plots/recall_memory.png`: the field's figure, `mqar` query accuracy at `RECALL_PAIRS` pairs
  against bits, every model that ran it, `bounded_state` at its budgets, and the counting bound
  of the paper's Theorem 2.7 for the values asked (`recall_bound`);
- the summary's section "Recall against memory" tables the same points.

    >>> row = lambda metric, value, task="mqar_tf_64": {"name": "m", "model": "m", "flags": "", "family": "mqar",
    ...     "variant": "teacher_forced", "metric": metric, "value": value, "stderr": "", "length": "64",
    ...     "task": task, "state_bits": "0", "state_bits_per_token": "8192", "architecture": "transformer"}
    >>> points = memory_points([row("query_accuracy", "0.9"), row("prompt_tokens_mean", "135")])
    >>> [(p.series, p.length, p.bits, p.value) for p in points["mqar"]]
    [('m', 64, 1105920, 0.9)]
    >>> round(recall_bound(1105920, 64), 2), recall_bound(9 * 32, 64)
    (1.0, 0.5)
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.mqar import ZOOLOGY_SYMBOLS
from copy_tasks.probes.family import GENERATION, QUERY_ACCURACY, TEACHER_FORCED
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.numbers import cell_length, cell_number
from copy_tasks.report.series import series

PLOT_NAME = "memory_axis.png"
RECALL_PLOT_NAME = "recall_memory.png"
RECALL_FAMILY = "mqar"
RECALL_PAIRS = (64, 256)  # Zoology's figure reads 64 pairs; and the longest the trained models were scored at
PROMPT_TOKENS = "prompt_tokens_mean"


@dataclass(frozen=True)
class MemoryPoint:
    """One model (its series) at one task: its accuracy and the bits it keeps there."""

    series: str
    architecture: str
    variant: str
    length: int
    bits: int
    value: float


def accuracy_metric(family: str) -> str:
    """The metric a family's points read: `mqar`'s query accuracy (the fraction of queries), else
    exact match (our rule)."""
    return QUERY_ACCURACY if family == RECALL_FAMILY else "exact_match"


def model_memory(rows: list[dict]) -> dict[tuple[str, str, str], tuple[float | None, float | None]]:
    """(model, dtype, backend) -> (state bits, bits a token) as any of its runs recorded them: a
    model keeps the same whatever the task, so a run of it from before memory was measured is
    placed by a later one."""
    found = {}
    for row in rows:
        fixed, per_token = cell_number(row.get("state_bits", "")), cell_number(row.get("state_bits_per_token", ""))
        if per_token is not None or fixed is not None:
            found[(row["model"], row.get("dtype", ""), row.get("backend", ""))] = (fixed, per_token)
    return found


def memory_points(rows: list[dict]) -> dict[str, list[MemoryPoint]]:
    """family -> the points of every series whose memory a run of its model recorded, by variant
    and length."""
    tokens = {(series(row), row["task"]): cell_number(row["value"]) for row in rows if row["metric"] == PROMPT_TOKENS}
    memory = model_memory(rows)
    points: dict[str, list[MemoryPoint]] = defaultdict(list)
    for row in rows:
        family = row["family"]
        if family not in FAMILIES or row["metric"] != accuracy_metric(family):
            continue
        value, length = cell_number(row["value"]), cell_length(row["length"])
        fixed, per_token = memory.get((row["model"], row.get("dtype", ""), row.get("backend", "")), (None, None))
        if value is None or length is None or (fixed is None and per_token is None):
            continue
        prompt = tokens.get((series(row), row["task"]))
        if per_token and prompt is None:
            continue  # its memory grows, and the prompt's tokens were not counted
        bits = int((fixed or 0) + (per_token or 0) * (prompt or 0))
        if bits > 0:
            points[family].append(MemoryPoint(series(row), row.get("architecture") or "unknown", row["variant"],
                                              length, bits, value))
    return {family: sorted(found, key=lambda p: (p.series, p.variant, p.length)) for family, found in points.items()}


def recall_bound(bits: float, pairs: int, value_bits: float = math.log2(ZOOLOGY_SYMBOLS)) -> float:
    """The most of `pairs` queried values a state of `bits` bits can hold: Theorem 2.7's counting
    argument, per value (each value one of 512 in Zoology's format, 9 bits): min(1, bits /
    (pairs x 9)). Attention keeps every value and is not bounded by it."""
    return min(1.0, bits / (pairs * value_bits))


def recall_points(points: dict[str, list[MemoryPoint]]) -> dict[int, list[MemoryPoint]]:
    """pairs -> the `mqar` points at `RECALL_PAIRS`, a series' teacher-forced point where it has one."""
    found = {}
    for pairs in RECALL_PAIRS:
        at = [point for point in points.get(RECALL_FAMILY, []) if point.length == pairs]
        taught = {point.series for point in at if point.variant == TEACHER_FORCED}
        chosen = [point for point in at if point.variant == TEACHER_FORCED or point.series not in taught]
        if chosen:
            found[pairs] = chosen
    return found


def architecture_colours(points: dict[str, list[MemoryPoint]]) -> dict[str, str]:
    """One colour per architecture label, in a fixed order."""
    import matplotlib

    labels = sorted({point.architecture for found in points.values() for point in found})
    palette = matplotlib.colormaps["tab10"].colors
    return {label: matplotlib.colors.to_hex(palette[index % len(palette)]) for index, label in enumerate(labels)}


def _axes_of(count: int, width: float = 4.4):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    columns = min(3, count)
    rows = -(-count // columns)
    figure, grid = pyplot.subplots(rows, columns, figsize=(width * columns, 3.5 * rows), dpi=100, squeeze=False)
    for axes in list(grid.flat)[count:]:
        axes.set_visible(False)
    return figure, list(grid.flat)[:count]


def _legend(figure, grid) -> None:
    handles = {}
    for axes in grid:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    figure.legend(list(handles.values()), list(handles), fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()


def _bits_axis(axes) -> None:
    from matplotlib.ticker import LogFormatterMathtext

    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(LogFormatterMathtext())
    axes.set_xlabel("memory at the prompt (bits)")
    axes.set_ylim(-0.05, 1.05)
    axes.grid(True, which="major", alpha=0.3)


def memory_axis_figure(rows: list[dict]):
    """`plots/memory_axis.png` (module docstring), or None where no model recorded its memory."""
    points = memory_points(rows)
    if not points:
        return None
    colours = architecture_colours(points)
    figure, grid = _axes_of(len(points))
    for axes, (family, found) in zip(grid, points.items()):
        for name in sorted({point.series for point in found}):
            for variant, style in ((GENERATION, "-"), (TEACHER_FORCED, "--")):
                line = [point for point in found if point.series == name and point.variant == variant]
                if line:
                    colour = colours[line[0].architecture]
                    axes.plot([p.bits for p in line], [p.value for p in line], style, marker="o", markersize=3,
                              color=colour, alpha=0.8, label=f"{line[0].architecture} ({variant})")
        _bits_axis(axes)
        axes.set_title(family, fontsize=10)
        axes.set_ylabel(accuracy_metric(family).replace("_", " "))
    _legend(figure, grid)
    return figure


def recall_memory_figure(rows: list[dict]):
    """`plots/recall_memory.png` (module docstring), or None where no model ran `mqar` at
    `RECALL_PAIRS` with its memory recorded."""
    points = memory_points(rows)
    chosen = recall_points(points)
    if not chosen:
        return None
    colours = architecture_colours(points)
    figure, grid = _axes_of(len(chosen), width=5.0)
    for axes, (pairs, found) in zip(grid, chosen.items()):
        for point in found:
            axes.plot([point.bits], [point.value], marker="o" if point.variant == TEACHER_FORCED else "s",
                      linestyle="none", color=colours[point.architecture], alpha=0.8,
                      markerfacecolor=colours[point.architecture] if point.variant == TEACHER_FORCED else "none",
                      label=f"{point.architecture} ({point.variant})")
        bits = sorted(point.bits for point in found)
        span = [bits[0] / 4, bits[-1] * 4]
        grid_bits = [span[0] * (span[1] / span[0]) ** (i / 60) for i in range(61)]
        axes.plot(grid_bits, [recall_bound(b, pairs) for b in grid_bits], ":", color="black",
                  label="Theorem 2.7 bound (9 bits a value)")
        _bits_axis(axes)
        axes.set_title(f"mqar, {pairs} key-value pairs", fontsize=10)
        axes.set_ylabel("query accuracy")
    _legend(figure, grid)
    return figure


def memory_markdown(rows: list[dict]) -> list[str]:
    """The summary's section: `mqar` at `RECALL_PAIRS` by memory, then how each model's memory
    was had; nothing when no model recorded its memory."""
    points = memory_points(rows)
    if not points:
        return []
    chosen = recall_points(points)
    recorded = {point.series for found in points.values() for point in found}
    missing = sorted({series(row) for row in rows if row["family"] in FAMILIES} - recorded)
    lines = ["", "## Recall against memory", "",
             "Memory: what a model keeps of the prompt, in bits, as its run recorded it (`state_bits`: what does "
             "not grow, measured from its cache; `state_bits_per_token` times the task's prompt tokens: what "
             f"grows). The plots: `plots/{PLOT_NAME}` (every family, each model over its lengths) and "
             f"`plots/{RECALL_PLOT_NAME}` (mqar at {' and '.join(map(str, RECALL_PAIRS))} pairs, with Theorem "
             "2.7's bound for a fixed state: at most bits / 9 of the values)."]
    if chosen:
        lines += ["", "| model | architecture | variant | " + " | ".join(
            f"bits at {pairs} pairs | query accuracy at {pairs}" for pairs in chosen) + " |",
                  "|---|---|---|" + "---:|---:|" * len(chosen)]
        keys = sorted({(p.series, p.architecture, p.variant) for found in chosen.values() for p in found})
        for name, architecture, variant in keys:
            cells = []
            for found in chosen.values():
                point = next((p for p in found if (p.series, p.variant) == (name, variant)), None)
                cells += ["-", "-"] if point is None else [f"{point.bits:,}", f"{point.value:.2f}"]
            lines.append(f"| {markdown_text(name)} | {architecture} | {variant} | " + " | ".join(cells) + " |")
    if missing:
        lines += ["", f"No memory recorded, so not on this axis: {', '.join(map(markdown_text, missing))} (a run "
                  "that could not measure its model, or whose prompts were neither counted nor logged)."]
    return lines
