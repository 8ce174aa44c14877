"""`summary.md`: one number per model and family, under each scoring rule, and the tables made
from the same rows.

The summary shows the latest run of each model in its setting (`copy_tasks.report.series`: every
run stays in the CSV), with the setting in each table's `flags` column and in the plots' legend.
A table per scoring rule (`copy_tasks.report.score_table`), its cells a model's effective length
and AUC on a family (`copy_tasks.report.curves`): both over the lengths the row ran, which its
cell names; rows of different ranges are not comparable (`RANKING_RULE`). Then the per-length
tables (`length_tables`, with each row's mean), the prompts in tokens (`prompt_tokens`), the
accuracy by where the answer sits (`position_table`), tables made elsewhere, plots and notes.
"""

from __future__ import annotations

from copy_tasks.probes.families import FAMILIES
from copy_tasks.report.curves import FEW_DOCS, THRESHOLD, Score
from copy_tasks.report.length_tables import per_length_markdown
from copy_tasks.report.markdown import markdown_text
from copy_tasks.report.position_table import position_markdown
from copy_tasks.report.prompt_tokens import prompt_tokens_markdown
from copy_tasks.report.score_table import TABLES, ScoreTable, first_view, row_flags, score_table

RANKING_RULE = ("Effective length and AUC are over the lengths each row ran, which its cell names: rows that ran "
                "other lengths are not compared: on the page, sorting a column orders rows within each range of "
                "lengths only, the widest range first.")


def markdown_cell(score: Score | None, row_flags: str = "") -> str:
    """`effective / AUC (lengths)` (and the docs per length where they are few), then the lengths
    that overflowed, then the tasks' own flags; `-` when the family was not run.

    >>> markdown_cell(Score(((10, 1.0), (20, 0.4)), (50, 100)))
    '10 / 0.70 (10-20); overflow at 50, 100'
    >>> markdown_cell(Score(((10, 1.0), (20, 0.5)), docs=(4, 4)))
    '20 / 0.75 (10-20, 4 docs per length)'
    >>> markdown_cell(Score((), (10,))), markdown_cell(Score(((10, 1.0),), (), "copy_tasks_lookup_format=paper"))
    ('overflow at 10', '10 / 1.00 (10) [copy_tasks_lookup_format=paper]')

    A row's flags (`row_flags`: the task flags all its scores have) are said once, in its flags
    column (`summary_table`), not in each cell.
    """
    if score is None:
        return "-"
    flags = f" [{markdown_text(score.task_flags)}]" if score.task_flags and score.task_flags != row_flags else ""
    if not score.points:
        return score.overflow_note + flags
    docs = f", {score.docs_note}" if score.docs_note else ""
    cell = f"{score.shown_effective} / {score.auc:.2f} ({score.shown_lengths}{docs})"
    return cell + ("; " + score.overflow_note if score.overflow else "") + flags


def summary_table(table: ScoreTable) -> str:
    """A Markdown table of one rule: a row per model, a column per family, cells
    `effective / AUC (lengths)`."""
    header = ["model", "architecture", "flags", *[f"{name} ({FAMILIES[name].unit})" for name in table.families]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        flags = row_flags([row.scores[name] for name in table.families])
        setting = " ".join(part for part in (markdown_text(row.setting), f"[{markdown_text(flags)}]" if flags else "")
                           if part)
        shown = [markdown_text(row.model), markdown_text(row.architecture), setting or "-"]
        cells = [markdown_cell(row.scores[name], flags) for name in table.families]
        lines.append("| " + " | ".join([*shown, *cells]) + " |")
    return "\n".join(lines)


# The figures a reader sees first (page and summary), those this build drew: accuracy against
# length on the paper's phone book, and recall against memory (the field's figure, else the memory
# axis of every family).
LENGTH_HEADLINE, MEMORY_HEADLINES = "phonebook_copy.png", ("recall_memory.png", "memory_axis.png")


def headline_plots(plot_files) -> list[str]:
    """The headline figures among `plot_files`: the phone book's, and one of memory.

    >>> headline_plots(["memory_axis.png", "mqar.png", "phonebook_copy.png", "recall_memory.png"])
    ['phonebook_copy.png', 'recall_memory.png']
    >>> headline_plots(["memory_axis.png", "mqar.png"])
    ['memory_axis.png']
    """
    memory = [name for name in MEMORY_HEADLINES if name in plot_files][:1]
    return ([LENGTH_HEADLINE] if LENGTH_HEADLINE in plot_files else []) + memory


def summary_markdown(rows: list[dict], plot_files: list[str], notes: list[str], sections: list[str] = (),
                     more_tables: list[str] = (), made_by: str = "") -> str:
    """The whole `summary.md`, the answer first: what made it (`made_by`, if given), the headline
    figures (`headline_plots`), the tables (the main one first: the rule the page opens on), the
    per-length tables, `more_tables` (Markdown lines of tables made elsewhere from the same rows:
    `copy_tasks.report.order_gaps`), the other plots, notes, `sections` (Markdown written by other
    commands) as they are, and last how to read it all."""
    tables = [table for table in (score_table(rows, rule) for rule in TABLES) if table]
    if tables:  # the main table first: the rule the page opens on
        main = first_view(tables)
        tables = [main, *(table for table in tables if table is not main)]
    headline = headline_plots(plot_files)
    parts = [
        "# copy-tasks leaderboard",
        "",
        "Exact match against length for every model and family, and recall against the memory each model "
        "keeps; how to read the tables is at the end.",
        *(["", made_by] if made_by else []),
    ]
    if headline:
        parts += ["", *[f"![{name}](plots/{name})" for name in headline]]
    for table in tables:
        parts += ["", f"## {table.rule.title}", "", summary_table(table)]
    parts += per_length_markdown(tables)
    parts += prompt_tokens_markdown(rows)
    parts += position_markdown(rows)
    parts += more_tables
    if rest := [name for name in plot_files if name not in headline]:
        parts += ["", "## Plots", ""]
        parts += [f"![{name}](plots/{name})" for name in rest]
    if notes:
        parts += ["", "## Notes", ""] + [f"- {markdown_text(note)}" for note in notes]
    for section in sections:
        parts += ["", section.strip()]
    parts += [
        "",
        "## How to read these tables",
        "",
        "Generated by `copy-tasks leaderboard` from the lm-eval results listed in "
        "`leaderboard.csv` (column `source_file`); the latest run of each model and task is shown, "
        "per setting: runs with flags that change what their numbers mean (column `flags`: a limit, chosen "
        "samples, other decoding, a chat template, a system instruction, few-shot) are rows of their own.",
        "",
        f"Cells: effective length / AUC (lengths run; the docs per length where fewer than {FEW_DOCS}: a value "
        "of 4 docs moves in steps of 0.25). Effective length: the longest length up to "
        f"which exact match (under the table's rule) stays at or above {THRESHOLD:.0%}; `<L`: already "
        "below at the shortest. AUC: area under exact match against log length, divided by the "
        "log-length span. Each table's heading names its rule and metric. "
        "Lengths where the backend cut some prompt (overflow) are left out of both and named. "
        f"{RANKING_RULE} The per-length tables show every length each model ran.",
    ]
    return "\n".join(parts) + "\n"
