"""`index.html`: the leaderboard as one self-contained web page.

The page shows the rows `summary.md` shows (a model in its setting: `summary.series`), in one
table against the families: for each family, the effective length and the AUC under each
scoring rule of the summary (`summary.TABLES`: the authors' rule, ours, teacher-forced), the
numbers computed once for both (`summary.score_table`). A cell's lengths, the lengths that
overflowed and the tasks' own flags are written under its AUC, as the summary writes them after
its cell. Every header sorts the table (`page_assets`). Then the per-length tables (as the
summary's: `summary.length_tables`), the plots of this build, inline as
`data:` URIs, the results files each row came from (a relative link when the file is inside the
leaderboard folder, its name otherwise), and the notes. Everything the page needs is in it: no
file, no network; its content security policy lets only its own two scripts and style run.

Every name is written as text: invisible characters as their code points (`summary.visible`),
then HTML-escaped, quotes included.

    >>> text("<b title='x'>&\\u202e")
    '&lt;b title=&#x27;x&#x27;&gt;&amp;\\\\u202e'
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import re
from pathlib import Path
from urllib.parse import quote

from copy_tasks.probes.families import FAMILIES
from copy_tasks.report.curves import FEW_DOCS, THRESHOLD, Score
from copy_tasks.report.length_tables import FEW_DOCS_NOTE, LengthTable, length_cell, length_tables, mean_cell
from copy_tasks.report.markdown import visible
from copy_tasks.report.page_assets import ERRORS_SCRIPT, SORT_SCRIPT, STYLE
from copy_tasks.report.score_table import (
    TABLES,
    Rule,
    ScoreTable,
    TableRow,
    first_view,
    natural_order,
    row_flags,
    score_table,
)
from copy_tasks.report.series import series
from copy_tasks.report.summary import RANKING_RULE, headline_plots
from copy_tasks.report.table import as_written

PAGE_NAME = "index.html"


def text(value: str) -> str:
    """A string shown as itself in HTML text or a quoted attribute."""
    return html.escape(visible(value), quote=True)


def breakable(value: str) -> str:
    """`text`, with line breaks allowed after `_`, `=`, `;`, `,` and `|` (long flags in narrow cells).

    >>> breakable("a_b=<c>")
    'a_<wbr>b=<wbr>&lt;c&gt;'
    """
    return "<wbr>".join(text(piece) for piece in re.split(r"(?<=[_=;,|])", value) if piece)


def result_links(read: dict[tuple[str, str], Path], out: Path) -> dict[tuple[str, str], str]:
    """(run, results file name) -> the file's link relative to `out`, for the files read that
    lie inside `out` (as the paths go: a folder linked into `out` counts as inside).

    >>> result_links({("m@d", "r.json"): Path("/l/results/m (1)/r.json"), ("n@d", "s.json"): Path("/s.json")},
    ...              Path("/l"))
    {('m@d', 'r.json'): 'results/m%20%281%29/r.json'}
    """
    inside = Path(os.path.abspath(out))
    links = {}
    for key, path in read.items():
        try:
            relative = Path(os.path.abspath(path)).relative_to(inside)
        except ValueError:
            continue
        links[key] = quote(relative.as_posix())
    return links


def _slug(rule: Rule) -> str:
    return f"{rule.variant}-{rule.metric}"


def _sort_header(column: int, ident: str, label: str, numeric: bool, classes: str = "", extra: str = "",
                 title: str = "") -> str:
    kind = ' data-type="number"' if numeric else ""
    tip = f' title="{text(title)}"' if title else ""
    style = f' class="{classes}"' if classes else ""
    return (f'<th scope="col" id="{text(ident)}" data-column="{column}"{kind}{style}{extra}{tip}>'
            f'<button type="button">{text(label)}</button></th>')


def _score_cells(score: Score | None, row_flags: str = "") -> str:
    """The effective-length and AUC cells of one score: values for sorting in `data-value`
    (`<L` sorts as 0; no value: empty, sorted last), the lengths run in `data-range` (a sort
    orders rows within equal ranges only), the notes under the AUC; a line before them, as before
    every family's pair of columns. A row's flags (`row_flags`: the task flags every one of its
    scores has) are written once in its flags column, not in each cell."""
    edge = " start"
    if score is None:
        return f'<td class="blank{edge}" data-value="">-</td><td class="blank" data-value="">-</td>'
    effective = "" if not score.points else str(score.effective or 0)
    auc = "" if score.auc is None else repr(score.auc)
    shown_auc = "" if score.auc is None else f"{score.auc:.2f}"
    notes = [f'<span class="lengths">{text(score.shown_lengths)}</span>'] if score.points else []
    notes += [f'<span class="lengths">{text(score.few_docs)} docs</span>'] if score.few_docs else []
    notes += [f'<span class="note">{breakable(note)}</span>'
              for note in (score.overflow_note, f"[{score.task_flags}]" if score.task_flags != row_flags else "")
              if note]
    lengths = f' data-range="{text(score.lengths)}"' if score.points else ""
    return (f'<td class="number{edge}" data-value="{effective}"{lengths}>{text(score.shown_effective)}</td>'
            f'<td class="number" data-value="{auc}"{lengths}>{shown_auc}{"".join(notes)}</td>')


def _columns(tables: list[ScoreTable]) -> list[tuple[str, ScoreTable]]:
    """(family, table) of each column pair: rules in `TABLES` order, each with its families in
    `FAMILIES` order, so that the columns a rule's radio button hides are whole header cells
    (a header spanning hidden and shown columns was laid out at the width of all of them)."""
    return [(family, table) for table in tables for family in FAMILIES if family in table.families]


def _table(tables: list[ScoreTable]) -> str:
    columns = _columns(tables)
    by_entry = {table.rule: {row.entry: row for row in table.rows} for table in tables}
    rows: dict[str, TableRow] = {}
    for table in tables:
        for row in table.rows:
            rows.setdefault(row.entry, row)
    first = [_sort_header(index, f"col-{name}", name, numeric=False, extra=' rowspan="3"')
             for index, name in enumerate(("model", "architecture", "flags"))]
    first += [f'<th scope="colgroup" class="{_slug(table.rule)} start" colspan="{2 * len(table.families)}">'
              f"{text(table.rule.label)}</th>" for table in tables]
    second, third = [], []
    for index, (family, table) in enumerate(columns):
        rule = table.rule
        second.append(f'<th scope="colgroup" colspan="2" class="family start">{breakable(family)} '
                      f"({text(FAMILIES[family].unit)})</th>")
        for offset, (measure, label) in enumerate((("effective", "eff. length"), ("auc", "AUC"))):
            third.append(_sort_header(3 + 2 * index + offset, f"col-{family}-{_slug(rule)}-{measure}", label,
                                      numeric=True, classes=_slug(rule) + (" start" if offset == 0 else ""),
                                      title=f"{family}, {rule.label}: {label}"))
    body = []
    for index, entry in enumerate(sorted(rows, key=natural_order)):
        about = rows[entry]
        scores = [row.scores[family] if (row := by_entry[table.rule].get(entry)) else None for family, table in columns]
        flags = row_flags(scores)
        setting = " ".join(part for part in (about.setting, f"[{flags}]" if flags else "") if part)
        cells = [f'<td data-value="{text(value)}">{shown(value) or "-"}</td>'
                 for value, shown in ((about.model, text), (about.architecture, text), (setting, breakable))]
        cells += [_score_cells(score, flags) for score in scores]
        body.append(f'<tr data-entry="{text(entry)}" data-index="{index}">{"".join(cells)}</tr>')
    head = "".join(f"<tr>{''.join(cells)}</tr>" for cells in (first, second, third))
    columns_of = '<col span="3">' + "".join(f'<col span="2" class="rule-{_slug(table.rule)}">' for _, table in columns)
    return (_rule_choice(tables) + f'<div class="scroll"><table id="leaderboard"><colgroup>{columns_of}</colgroup>'
            f"<thead>{head}</thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table></div></div>")


def _rule_choice(tables: list[ScoreTable]) -> str:
    """The radio buttons that choose which rule's columns the table shows (one rule, or all):
    the other rules' columns collapse (`page_assets.STYLE`), so that the table fits a window. It
    opens on `first_view`."""
    opened = _slug(first_view(tables).rule)
    choices = [(_slug(table.rule), table.rule.label) for table in tables] + [("all", "all rules")]
    buttons = "".join(f'<input type="radio" name="rule" id="show-{slug}"{" checked" if slug == opened else ""}>'
                      f'<label for="show-{slug}">{text(label)}</label>' for slug, label in choices)
    return f'<div class="rules"><span class="choose">Show:</span> {buttons}\n'


def _code(title: str) -> str:
    """A rule's title, its `code` spans as <code>."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", text(title))


def _legend(tables: list[ScoreTable]) -> str:
    rules = "".join(f"<dt>{text(table.rule.label)}</dt><dd>{_code(table.rule.title)}</dd>" for table in tables)
    opened = (" The table opens on the rule under which the most cells have numbers "
              f"({text(first_view(tables).rule.label)}).") if tables else ""
    return (
        f'<dl class="legend">{rules}</dl>\n'
        f"<p><b>eff. length</b>: the longest length up to which exact match (under the column's rule) stays at or "
        f"above {THRESHOLD:.0%}; <code>&lt;L</code>: already below at the shortest length L (sorted as 0). "
        "<b>AUC</b>: area under exact match against log length, divided by the log-length span; the lengths run "
        f"are under it, then the docs per length where fewer than {FEW_DOCS} (<i>4 docs</i>: a value moves in "
        "steps of 0.25), the lengths left out because the backend cut some prompt (overflow) and the tasks' "
        "own flags, in brackets. <b>flags</b>: the run's setting (flags that change what all its numbers mean); "
        "a model in two settings is two rows. <code>-</code>: not run under the column's rule (a model run only "
        f"teacher-forced has no generation numbers).{opened} Click a header to sort by it (numbers "
        f"highest first, names A to Z; again to reverse; empty cells last).</p>\n<p>{text(RANKING_RULE)}</p>"
    )


def _length_table(table: LengthTable) -> str:
    """One family under one rule, length by length, as `summary.md` shows it."""
    names = ("model", "flags", *map(str, table.lengths), "mean")
    head = "".join(f'<th scope="col">{text(name)}</th>' for name in names)
    body = []
    for row, values, docs in table.rows:
        cells = [f"<td>{text(row.model)}</td>", f"<td>{text(row.setting) or '-'}</td>"]
        cells += [f'<td class="number">{text(length_cell(values.get(length), docs.get(length)))}</td>'
                  for length in table.lengths]
        cells.append(f'<td class="number">{text(mean_cell(table.mean(values)))}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<h4>{text(table.family)} ({text(FAMILIES[table.family].unit)})</h4>\n'
            f'<div class="scroll"><table class="per-length"><thead><tr>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(body) + "\n</tbody></table></div>")


def _per_length(tables: list[ScoreTable]) -> str:
    """The per-length section: each rule's tables, family by family."""
    if not tables:
        return ""
    parts = ['<h2 id="per-length">Per length</h2>',
             f"<p>Exact match at each length, under each table's rule; {_code(FEW_DOCS_NOTE)} <code>cut</code>: "
             "some doc did not fit the backend's context there; <code>-</code>: not run. The mean is over the "
             "lengths the row was scored at, named beside it when they are not all of the table's: means over "
             "different lengths are not comparable.</p>"]
    for table in tables:
        parts.append(f"<h3>{_code(table.rule.title)}</h3>")
        parts += [_length_table(lengths) for lengths in length_tables(table)]
    return "\n".join(parts)


def _figure(name: str, png: bytes) -> str:
    return (f'<figure><img alt="{text(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
            f"<figcaption>{text(name)}</figcaption></figure>")


def _headline(plots: dict[str, bytes]) -> str:
    """The figures the page opens on (`headline_plots`), side by side above the table."""
    figures = [_figure(name, plots[name]) for name in headline_plots(plots)]
    return '<div id="headline">' + "\n".join(figures) + "</div>" if figures else ""


def _plots(plots: dict[str, bytes]) -> str:
    """Every other plot of this build, below the tables."""
    shown = set(headline_plots(plots))
    figures = [_figure(name, png) for name, png in sorted(plots.items()) if name not in shown]
    return "<h2>Plots</h2>\n" + "\n".join(figures) if figures else ""


def _sources(rows: list[dict], links: dict[tuple[str, str], str]) -> str:
    """The results files of each row of the table: linked when inside the folder, named otherwise."""
    files: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        files.setdefault(series(row), set()).add((as_written(row["run"]), as_written(row["source_file"])))
    items = []
    for entry in sorted(files):
        shown = [f'<a href="{text(links[key])}">{text(key[1])}</a>' if key in links else f"<code>{text(key[1])}</code>"
                 for key in sorted(files[entry], key=lambda key: key[1])]
        items.append(f"<li>{text(entry)}: {', '.join(shown)}</li>")
    return '<h2>Raw results</h2>\n<ul id="raw-results">\n' + "\n".join(items) + "\n</ul>"


def _source_hash(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"


def page_html(rows: list[dict], plots: dict[str, bytes], notes: list[str],
              links: dict[tuple[str, str], str], sections: list[str] = (),
              section_plots: dict[str, bytes] | None = None, made_by: str = "") -> str:
    """The whole `index.html` of the rows shown (`summary.latest_runs`), this build's plots
    (name -> PNG), the notes on runs, the results files' links (`result_links`), the
    sections other commands added (Markdown, `page_sections`) with the plot files they show, and
    what made the runs (`made_by`: a line of Markdown whose `code` spans are kept)."""
    from copy_tasks.report.page_sections import section_html

    tables = [table for table in (score_table(rows, rule) for rule in TABLES) if table]
    policy = (f"default-src 'none'; img-src data:; style-src {_source_hash(STYLE)}; "
              f"script-src {_source_hash(ERRORS_SCRIPT)} {_source_hash(SORT_SCRIPT)}")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>copy-tasks leaderboard</title>",
        f"<script>{ERRORS_SCRIPT}</script>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        "<h1>copy-tasks leaderboard</h1>",
        "<p>Generated by <code>copy-tasks leaderboard</code>: the latest run of each model and task, per setting. "
        'Every number, with provenance: <a href="leaderboard.csv">leaderboard.csv</a>; the same tables and sections '
        'as Markdown: <a href="summary.md">summary.md</a>.</p>',
        f'<p id="made-by">{_code(made_by)}</p>' if made_by else "",
        _headline(plots),
        _table(tables) if tables else "<p>No scores to show.</p>",
        f'<details id="how-to-read"><summary>How to read the table</summary>\n{_legend(tables)}</details>',
        _per_length(tables),
        _plots(plots),
        *(section_html(section, section_plots or {}, text) for section in sections),
        _sources(rows, links),
    ]
    if notes:
        parts += ["<h2>Notes</h2>", "<ul>", *[f"<li>{text(note)}</li>" for note in notes], "</ul>"]
    parts += ['<pre id="test-result"></pre>', f"<script>{SORT_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(part for part in parts if part) + "\n"
