"""One number per model and family, and `summary.md`.

The summary reads the latest run of each (model, backend, setting, family options, task): every run stays in
the CSV, the newest one (by its lm-eval date) is the one summarised and plotted. A run's
setting is the flags that change what all its numbers mean (`RUN_FLAGS`: a limit, chosen
samples, other decoding, a chat template, a system instruction, few-shot): runs of one model in
two settings are two rows of each table, two lines of each plot, with the setting in the
table's `flags` column and in the plot's legend. A task's own flags (family options, budgets
raised by `max_gen_toks`) follow the cell. Runs of one model and setting that are other
experiments are kept apart the same way, the setting naming what differs (`kept_apart`): another
backend (`backend=hf_fast`), other docs of a family (`copy_tasks_mqar_format=zoology`).

A table per scoring rule: generation under the authors' rule (`authors_exact_match`, the
number the paper reports), generation under ours (`exact_match`: the answer at the start,
whatever follows), and teacher-forced (`exact_match`, lm-eval's `is_greedy`). Per model and
family, on that metric against length:
- effective length: the longest length up to which exact match stays at or above 50% (every
  shorter length the model ran passes too); `<L` when it already fails at the shortest length L;
- AUC: the area under exact match against log length, divided by the log-length span, so 1.0
  means perfect at every length.
Both are over the lengths the row ran, which its cell names; rows of different ranges are not
comparable (`RANKING_RULE`). The per-length tables show every length, and each row's mean.
Lengths at which any doc overflowed (the backend cut its prompt; `overflow` above 0) are left
out of both and of the plots, and named in the cell.

    >>> effective_length([(20, 1.0), (50, 0.6), (100, 0.4), (200, 0.7)])
    50
    >>> round(area_under_curve([(10, 1.0), (100, 0.0)]), 3)
    0.5
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED
from copy_tasks.report.positions import THIRDS, pooled
from copy_tasks.report.rows import LARGEST_VALUE
from copy_tasks.report.table import as_written

THRESHOLD = 0.5
CUT = "cut"  # a length at which some doc did not fit the backend's context
RANKING_RULE = ("Effective length and AUC are over the lengths each row ran, which its cell names: rows that ran "
                "other lengths are not compared: on the page, sorting a column orders rows within each range of "
                "lengths only, the widest range first.")
# The flags (leaderboard column `flags`, `name` or `name=value` joined by `;`) that change
# what every number of a run means.
RUN_FLAGS = ("limit", "samples", "gen_kwargs", "not_greedy", "chat_template", "system_instruction", "num_fewshot")


# Run flags whose value is the task's own (the docs `--samples` chose for it): the setting names
# the flag, the cell shows its value.
PER_TASK_VALUES = ("samples",)


def split_flags(flags: str) -> tuple[str, str]:
    """(the run's setting, the task's own flags) of a row's flags.

    >>> split_flags("limit=5;chat_template;copy_tasks_lookup_format=paper")
    ('limit=5;chat_template', 'copy_tasks_lookup_format=paper')
    >>> split_flags("samples=3|7;not_greedy")
    ('samples;not_greedy', 'samples=3|7')
    """
    run, task = [], []
    for flag in (flag for flag in flags.split(";") if flag):
        name = flag.partition("=")[0]
        if name in PER_TASK_VALUES:
            run.append(name)
            task.append(flag)
        elif name in RUN_FLAGS:
            run.append(flag)
        else:
            task.append(flag)
    return ";".join(run), ";".join(task)


# The key of a shown row (`latest_runs`) naming what keeps it apart from rows of the same model
# and setting that are other experiments: another backend, other docs (family options).
KEPT_APART = "kept_apart"


def setting(row: dict) -> str:
    """What a row's line and table row are, besides the model: its run's setting (`split_flags`),
    then what `latest_runs` kept apart.

    >>> setting({"flags": "limit=5;copy_tasks_mqar_format=zoology", KEPT_APART: "copy_tasks_mqar_format=zoology"})
    'limit=5;copy_tasks_mqar_format=zoology'
    """
    return ";".join(part for part in (split_flags(as_written(row["flags"]))[0], row.get(KEPT_APART, "")) if part)


def series(row: dict) -> str:
    """The name of a row's line in the plots and row in the tables: the model, and its `setting`
    in brackets when it has one.

    >>> series({"name": "SmolLM2", "flags": "chat_template;max_gen_toks_sent=50"})
    'SmolLM2 [chat_template]'
    """
    shown = setting(row)
    model = as_written(row["name"])
    return f"{model} [{shown}]" if shown else model


def family_options(row: dict) -> str:
    """The family options of a row's task other than their defaults, as its flags write them
    (other docs than the family's default: another prompt format, key length...).

    >>> family_options({"family": "mqar", "flags": "max_gen_toks_sent=9;copy_tasks_mqar_format=zoology"})
    'copy_tasks_mqar_format=zoology'
    """
    keys = {option.key for option in FAMILIES[row["family"]].options} if row["family"] in FAMILIES else set()
    return ";".join(flag for flag in split_flags(as_written(row["flags"]))[1].split(";")
                    if flag.partition("=")[0] in keys)


def kept_apart(rows: list[dict]) -> list[dict]:
    """The rows, each with what tells it from other experiments shown under the same model and
    setting (`KEPT_APART`): its backend where the model ran through several (`hf` and `hf_fast`),
    its family options where the model ran a family with several (mqar in its natural and in
    Zoology's format: other docs). Nothing where a model and setting is one experiment, so the
    names stay as they are. The rows are copies; those given do not change.

    >>> rows = [{"name": "m", "flags": flags, "backend": "hf", "family": "mqar"}
    ...         for flags in ("", "copy_tasks_mqar_format=zoology")]
    >>> [series(row) for row in kept_apart(rows)]
    ['m', 'm [copy_tasks_mqar_format=zoology]']
    """
    backends, options = defaultdict(set), defaultdict(set)
    for row in rows:
        backends[series(row)].add(row["backend"])
        options[(series(row), row["family"])].add(family_options(row))
    found = []
    for row in rows:
        parts = [f"backend={row['backend']}"] if len(backends[series(row)]) > 1 else []
        if len(options[(series(row), row["family"])]) > 1 and family_options(row):
            parts.append(family_options(row))
        found.append({**row, KEPT_APART: ";".join(parts)} if parts else row)
    return found


def latest_runs(rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The rows of the newest run of each (model in its setting, backend, family options, task):
    other backends and other docs kept apart (`kept_apart`), and a note per model that has
    several runs of a task."""
    rows = kept_apart(rows)
    runs = defaultdict(set)
    for row in rows:
        runs[(series(row), row["backend"], row["task"])].add((row["date"], row["run"], row["source_file"]))
    newest = {key: max(found) for key, found in runs.items()}
    notes = sorted({
        f"{model} ({backend}): {len(found)} runs of {task} (in {', '.join(sorted(f[2] for f in found))}); "
        f"all stay in the CSV, the summary and plots use the latest ({newest[(model, backend, task)][1]})"
        for (model, backend, task), found in runs.items() if len(found) > 1
    })
    kept = [row for row in rows
            if (row["date"], row["run"], row["source_file"]) == newest[(series(row), row["backend"], row["task"])]]
    return kept, notes


MARKDOWN_SPECIALS = re.compile(r"([\\`*\[\]()!|$~#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def visible(text: str) -> str:
    r"""Text with its invisible format and control characters (a right-to-left override, a
    line break) written as their code points, so that a name shows as it is.

    >>> print(visible("abc\u202edef\r"))
    abc\u202edef\u000d
    """
    return "".join(f"\\u{ord(char):04x}" if unicodedata.category(char) in ("Cc", "Cf") else char for char in text)


def markdown_text(text: str) -> str:
    r"""Text shown as itself in Markdown: HTML and Markdown syntax escaped (an underscore only
    where it could start or end emphasis), and invisible format and control characters (a
    right-to-left override, a carriage return) written as their code points.

    >>> print(markdown_text("![x](http://a.b)<script>|"), markdown_text("gemma-3_270m"), markdown_text("_u_"))
    \!\[x\]\(http://a.b\)&lt;script&gt;\| gemma-3_270m \_u\_
    >>> print(markdown_text("abc\u202edef"), markdown_text("\r=1+1"))
    abc\\u202edef \\u000d=1+1
    """
    return MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(visible(text), quote=False))


def cell_number(text: str) -> float | None:
    """A CSV cell as a finite number of plausible size, or None (a CSV written by an older
    version, or edited, must not break the summary or the plots)."""
    try:
        number = float(text)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and abs(number) <= LARGEST_VALUE else None


def cell_length(text: str) -> int | None:
    number = cell_number(text)
    return int(number) if number is not None and number >= 1 and number == int(number) else None


def overflowed(rows: list[dict], family: str, variant: str) -> dict[str, set[int]]:
    """series -> the lengths of a family and variant at which some doc overflowed."""
    found = defaultdict(set)
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) == (family, variant, "overflow"):
            value, length = cell_number(row["value"]), cell_length(row["length"])
            if value is not None and value > 0 and length is not None:
                found[series(row)].add(length)
    return found


def curves(rows: list[dict], family: str, variant: str, metric: str) -> dict[str, list[tuple[int, float, float]]]:
    """series (`series`: the model in its setting) -> [(length, value, stderr)] sorted by
    length; missing values and lengths that overflowed left out, missing stderr as 0."""
    cut = overflowed(rows, family, variant)
    found = defaultdict(list)
    for row in rows:
        if (row["family"], row["variant"], row["metric"]) != (family, variant, metric):
            continue
        value, length = cell_number(row["value"]), cell_length(row["length"])
        if value is None or length is None or length in cut[series(row)]:
            continue
        stderr = cell_number(row["stderr"])
        found[series(row)].append((length, value, stderr if stderr is not None and stderr >= 0 else 0.0))
    return {model: sorted(points) for model, points in sorted(found.items())}


def effective_length(points: list[tuple[int, float]]) -> int | None:
    """The longest length up to which the value stays at or above the threshold; None when the
    shortest length already fails."""
    passed = None
    for length, value in sorted(points):
        if value < THRESHOLD:
            break
        passed = length
    return passed


def area_under_curve(points: list[tuple[int, float]]) -> float:
    """Trapezoids over log length, divided by the log-length span (one point: its value)."""
    points = sorted(points)
    if len(points) == 1:
        return points[0][1]
    area = sum((math.log(b[0]) - math.log(a[0])) * (a[1] + b[1]) / 2 for a, b in zip(points, points[1:]))
    return area / (math.log(points[-1][0]) - math.log(points[0][0]))


@dataclass(frozen=True)
class Score:
    """A model's numbers on one family under one rule: the (length, value) points it ran, the
    lengths left out because some doc overflowed, and the tasks' own flags (as written).

    >>> score = Score(((10, 1.0), (20, 0.4)), (50, 100))
    >>> score.effective, score.shown_effective, round(score.auc, 2), score.lengths, score.overflow_note
    (10, '10', 0.7, '10-20', 'overflow at 50, 100')
    >>> Score(((10, 0.2),)).shown_effective, Score((), (10,)).auc
    ('<10', None)
    """

    points: tuple[tuple[int, float], ...]
    overflow: tuple[int, ...] = ()
    task_flags: str = ""

    @property
    def effective(self) -> int | None:
        return effective_length(list(self.points)) if self.points else None

    @property
    def shown_effective(self) -> str:
        """The effective length as the tables show it: `<L` when the shortest length L fails,
        empty when no length was scored."""
        if not self.points:
            return ""
        return str(self.effective) if self.effective is not None else f"<{self.points[0][0]}"

    @property
    def auc(self) -> float | None:
        return area_under_curve(list(self.points)) if self.points else None

    @property
    def lengths(self) -> str:
        return f"{self.points[0][0]}-{self.points[-1][0]}" if self.points else ""

    @property
    def overflow_note(self) -> str:
        return "overflow at " + ", ".join(map(str, self.overflow)) if self.overflow else ""


class Rule(NamedTuple):
    """One scoring rule of the tables: the variant and metric it reads, a short label, a title."""

    variant: str
    metric: str
    label: str
    title: str


# One summary table each, in this order.
TABLES = (
    Rule(GENERATION, "authors_exact_match", "authors' rule",
         "Generation, the authors' rule (the paper's protocol: `authors_exact_match`)"),
    Rule(GENERATION, "exact_match", "our rule",
         "Generation, our rule (the answer at the start, whatever follows: `exact_match`)"),
    Rule(TEACHER_FORCED, "exact_match", "teacher-forced",
         "Teacher-forced (greedy exact match in one forward pass: `exact_match`)"),
)


@dataclass(frozen=True)
class TableRow:
    """A row of a table: a model in its setting (`series`), as written, and its `Score` per
    family (None: not run)."""

    entry: str
    model: str
    architecture: str
    setting: str
    scores: dict[str, Score | None]


@dataclass(frozen=True)
class ScoreTable:
    """The numbers of one rule's table: its families (in `FAMILIES` order) and rows (by `series`)."""

    rule: Rule
    families: list[str]
    rows: list[TableRow]
    # family -> series -> length -> its value, or `CUT` where some doc overflowed (the
    # per-length tables)
    every_length: dict[str, dict[str, dict[int, float | str]]] = field(default_factory=dict)


def score_table(rows: list[dict], rule: Rule) -> ScoreTable | None:
    """The table of one rule (summary.md and index.html show it), or None when no row has its
    metric."""
    variant, metric = rule.variant, rule.metric
    families = [name for name in FAMILIES
                if any((r["family"], r["variant"], r["metric"]) == (name, variant, metric) for r in rows)]
    if not families:
        return None
    by_family = {name: curves(rows, name, variant, metric) for name in families}
    cut = {name: overflowed(rows, name, variant) for name in families}
    flags = {name: task_flags(rows, name, variant) for name in families}
    entries = sorted({entry for name in families for entry in (*by_family[name], *cut[name])})
    about = {series(row): (as_written(row["name"]), row["architecture"], setting(row)) for row in rows}
    table_rows = []
    for entry in entries:
        scores = {name: Score(tuple((length, value) for length, value, _ in by_family[name].get(entry, [])),
                              tuple(sorted(cut[name].get(entry, set()))), flags[name].get(entry, ""))
                  if entry in by_family[name] or entry in cut[name] else None for name in families}
        table_rows.append(TableRow(entry, *about.get(entry, (entry, "", "")), scores))
    every_length = {name: {entry: {**dict.fromkeys(cut[name].get(entry, set()), CUT),
                                   **{length: value for length, value, _ in by_family[name].get(entry, [])}}
                           for entry in entries if entry in by_family[name] or entry in cut[name]}
                    for name in families}
    return ScoreTable(rule, families, table_rows, every_length)


def markdown_cell(score: Score | None) -> str:
    """`effective / AUC (lengths)`, then the lengths that overflowed, then the tasks' own flags;
    `-` when the family was not run.

    >>> markdown_cell(Score(((10, 1.0), (20, 0.4)), (50, 100)))
    '10 / 0.70 (10-20); overflow at 50, 100'
    >>> markdown_cell(Score((), (10,))), markdown_cell(Score(((10, 1.0),), (), "copy_tasks_lookup_format=paper"))
    ('overflow at 10', '10 / 1.00 (10-10) [copy_tasks_lookup_format=paper]')
    """
    if score is None:
        return "-"
    flags = f" [{markdown_text(score.task_flags)}]" if score.task_flags else ""
    if not score.points:
        return score.overflow_note + flags
    cell = f"{score.shown_effective} / {score.auc:.2f} ({score.lengths})"
    return cell + ("; " + score.overflow_note if score.overflow else "") + flags


def task_flags(rows: list[dict], family: str, variant: str) -> dict[str, str]:
    """series -> the tasks' own flags of a family and variant, each distinct flag once (those
    the series' name already shows left out)."""
    found = defaultdict(dict)
    for row in rows:
        if (row["family"], row["variant"]) == (family, variant):
            own, named = split_flags(as_written(row["flags"]))[1], row.get(KEPT_APART, "").split(";")
            found[series(row)].update(dict.fromkeys(flag for flag in own.split(";") if flag and flag not in named))
    return {name: ";".join(flags) for name, flags in found.items()}


def summary_table(table: ScoreTable) -> str:
    """A Markdown table of one rule: a row per model, a column per family, cells
    `effective / AUC (lengths)`."""
    header = ["model", "architecture", "flags", *[f"{name} ({FAMILIES[name].unit})" for name in table.families]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        shown = [markdown_text(row.model), markdown_text(row.architecture), markdown_text(row.setting) or "-"]
        cells = [markdown_cell(row.scores[name]) for name in table.families]
        lines.append("| " + " | ".join([*shown, *cells]) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class LengthTable:
    """One family under one rule, length by length: the lengths any row ran (columns) and each
    row's value per length (absent: not run; `CUT`: some doc overflowed there)."""

    family: str
    lengths: tuple[int, ...]
    rows: tuple[tuple[TableRow, dict[int, float | str]], ...]

    def mean(self, values: dict[int, float | str]) -> tuple[float, str] | None:
        """A row's mean over the lengths it was scored at (as RULER averages over lengths), and
        those lengths when they are not all of the table's; None when none was scored.

        >>> table = LengthTable("random_copy", (10, 20, 50), ())
        >>> table.mean({10: 1.0, 20: 0.5, 50: 0.0}), table.mean({10: 1.0, 20: 0.5, 50: CUT})
        ((0.5, ''), (0.75, '10-20'))
        """
        scored = sorted(length for length, value in values.items() if isinstance(value, float))
        if not scored:
            return None
        mean = sum(float(values[length]) for length in scored) / len(scored)
        return mean, "" if tuple(scored) == self.lengths else f"{scored[0]}-{scored[-1]}"


def length_tables(table: ScoreTable) -> list[LengthTable]:
    """One `LengthTable` per family of a rule's table, from the same scores the table shows."""
    found = []
    for family in table.families:
        values = table.every_length[family]
        per_row = tuple((row, values[row.entry]) for row in table.rows if row.entry in values)
        lengths = tuple(sorted({length for _, values in per_row for length in values}))
        found.append(LengthTable(family, lengths, per_row))
    return found


def length_cell(value: float | str | None) -> str:
    """A value of a per-length table: two decimals, `cut` (some doc overflowed), `-` (not run).

    >>> length_cell(0.125), length_cell(CUT), length_cell(None)
    ('0.12', 'cut', '-')
    """
    if value is None:
        return "-"
    return value if isinstance(value, str) else f"{value:.2f}"


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
    for row, values in table.rows:
        cells = [length_cell(values.get(length)) for length in table.lengths]
        lines.append("| " + " | ".join([markdown_text(row.model), markdown_text(row.setting) or "-", *cells,
                                        mean_cell(table.mean(values))]) + " |")
    return "\n".join(lines)


def per_length_markdown(tables: list[ScoreTable]) -> list[str]:
    """The summary's per-length section: each rule's tables, family by family."""
    parts = ["", "## Per length", "",
             "Exact match at each length, under each table's rule; `cut`: some doc did not fit the "
             "backend's context there (left out of the numbers above); `-`: not run. The mean is over the "
             "lengths the row was scored at, named beside it when they are not all of the table's: means "
             "over different lengths are not comparable."]
    for table in tables:
        parts += ["", f"### {table.rule.title}"]
        for lengths in length_tables(table):
            parts += ["", f"#### {lengths.family} ({FAMILIES[lengths.family].unit})", "",
                      length_table_markdown(lengths)]
    return parts


def prompt_tokens(rows: list[dict], family: str) -> dict[str, dict[int, tuple[float, float | None]]]:
    """series -> length -> (mean, max) of a family's generation prompts in the backend's own
    tokens, where the runs recorded them (`prompt_tokens_mean`, `prompt_tokens_max`).

    >>> rows = [{"name": "m", "flags": "", "family": "random_copy", "variant": "generation", "length": "10",
    ...          "metric": metric, "value": value} for metric, value in (("prompt_tokens_mean", "31.5"),
    ...                                                                 ("prompt_tokens_max", "40"))]
    >>> prompt_tokens(rows, "random_copy")
    {'m': {10: (31.5, 40.0)}}
    """
    found: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        if (row["family"], row["variant"]) == (family, GENERATION) and row["metric"] in ("prompt_tokens_mean",
                                                                                          "prompt_tokens_max"):
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


def summary_markdown(rows: list[dict], plot_files: list[str], notes: list[str], sections: list[str] = (),
                     more_tables: list[str] = ()) -> str:
    """The whole `summary.md`: the tables, how to read them, `more_tables` (Markdown lines of
    tables made elsewhere from the same rows: `copy_tasks.report.order_gaps`), the plots, notes,
    then `sections` (Markdown written by other commands) as they are."""
    parts = [
        "# copy-tasks leaderboard",
        "",
        "Generated by `copy-tasks leaderboard` from the lm-eval results listed in "
        "`leaderboard.csv` (column `source_file`); the latest run of each model and task is shown, "
        "per setting: runs with flags that change what their numbers mean (column `flags`: a limit, chosen "
        "samples, other decoding, a chat template, a system instruction, few-shot) are rows of their own.",
        "",
        f"Cells: effective length / AUC (lengths run). Effective length: the longest length up to "
        f"which exact match (under the table's rule) stays at or above {THRESHOLD:.0%}; `<L`: already "
        "below at the shortest. AUC: area under exact match against log length, divided by the "
        "log-length span. Each table's heading names its rule and metric. "
        "Lengths where the backend cut some prompt (overflow) are left out of both and named. "
        f"{RANKING_RULE} The per-length tables below show every length each model ran.",
    ]
    tables = [table for table in (score_table(rows, rule) for rule in TABLES) if table]
    for table in tables:
        parts += ["", f"## {table.rule.title}", "", summary_table(table)]
    parts += per_length_markdown(tables)
    parts += prompt_tokens_markdown(rows)
    parts += position_markdown(rows)
    parts += more_tables
    if plot_files:
        parts += ["", "## Plots", ""]
        parts += [f"![{name}](plots/{name})" for name in plot_files]
    if notes:
        parts += ["", "## Notes", ""] + [f"- {markdown_text(note)}" for note in notes]
    for section in sections:
        parts += ["", section.strip()]
    return "\n".join(parts) + "\n"
