"""`copy-tasks leaderboard RESULTS... --out DIR`: lm-eval results in; CSV, plots, summary out.

    copy-tasks leaderboard results/ more/results_2026-11-29T10-00-00.json --out leaderboard/
    copy-tasks leaderboard out/ --out leaderboard/ --name 'gemma-3-270m=Gemma 3 270M'

writes `DIR/leaderboard.csv` (merged with the one already there), `DIR/plots/*.png`,
`DIR/summary.md` (ending with any Markdown files in `DIR/sections/`, in name order: sections
other commands add, such as `copy-tasks train`'s experiments) and `DIR/index.html` (the
summary's tables as one sortable, self-contained web page, with the plots and links to the raw
results). Files that cannot be used are named on stderr with the reason and skipped (exit
status 1), and so is an input that holds no results file; when no input holds one, nothing is
written (exit status 1). The rows already in the CSV are never lost. The outputs are written
all together or not at all (`write_all_atomically`: an output that cannot be replaced leaves
every one as it was), and the merge holds a lock on `DIR` from reading the CSV to writing the page, so
two builds into one folder at once both keep their rows and the summary and page match the CSV
(`common.files.locked_folder`: the folder itself, so no lock file is left in it).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from copy_tasks.common.files import locked_folder, write_all_atomically
from copy_tasks.probes.options import one_line_errors
from copy_tasks.report.display_names import NameRule, name_rule
from copy_tasks.report.html_page import PAGE_NAME, page_html, result_links
from copy_tasks.report.memory_axis import memory_markdown
from copy_tasks.report.order_gaps import order_gap_markdown
from copy_tasks.report.plots import all_plots
from copy_tasks.report.query_accuracy import query_accuracy_markdown
from copy_tasks.report.results import Problem, find_result_files
from copy_tasks.report.rows import rows_from_file
from copy_tasks.report.series import latest_runs
from copy_tasks.report.state_axis import state_size_markdown
from copy_tasks.report.summary import summary_markdown
from copy_tasks.report.table import (
    LeaderboardFileError,
    csv_text,
    format_rows,
    merge,
    read_csv,
    remove_stale_temporaries,
    with_names,
)

CSV_NAME = "leaderboard.csv"
SUMMARY_NAME = "summary.md"
PLOTS = "plots"
SECTIONS = "sections"
LOCK_NAME = ".leaderboard.lock"  # only where the folder itself cannot be locked


def prepare_out(out: Path) -> None:
    """Make the leaderboard folder, or say plainly why it cannot be one."""
    for folder in (out, out / PLOTS):
        if folder.exists() and not folder.is_dir():
            raise LeaderboardFileError(f"--out {out}: {folder} is a file, not a folder")
    try:
        (out / PLOTS).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LeaderboardFileError(f"--out {out}: cannot make the folder ({error.strerror}: "
                                   f"{error.filename})") from None
    for folder in (out, out / PLOTS):
        try:
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as error:
            raise LeaderboardFileError(f"--out {out}: cannot write into {folder} ({error.strerror}); "
                                       "nothing was written") from None


def section_plots(out: Path, sections: list[str], plots: dict[str, bytes]) -> dict[str, bytes]:
    """The plot files the sections show (`![...](plots/<name>.png)`): this build's, else the
    regular files in `out/plots/` (a section's own, such as the training plots)."""

    found = {}
    for name in sorted({match for section in sections for match in re.findall(r"\]\(plots/([^)/]+\.png)\)", section)}):
        path = out / PLOTS / name
        if name in plots:
            found[name] = plots[name]
        elif path.is_file() and not path.is_symlink():
            found[name] = path.read_bytes()
    return found


def read_sections(out: Path) -> list[str]:
    """The Markdown files of `out/sections/`, in name order, each checked before anything is
    written (a section that cannot be read would leave a summary that does not match the CSV)."""
    texts = []
    for path in sorted((out / SECTIONS).glob("*.md")):
        if not path.is_file():
            raise LeaderboardFileError(f"{path}: not a regular file; {SECTIONS}/ holds Markdown files, appended "
                                       "to summary.md. Nothing was written")
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as error:
            raise LeaderboardFileError(f"{path}: not UTF-8 text (byte {error.start}); nothing was written") from None
        except OSError as error:
            raise LeaderboardFileError(f"{path}: cannot be read ({error.strerror}); nothing was written") from None
    return texts


@contextmanager
def locked(out: Path):
    """Hold the leaderboard folder's lock (other builds into it wait), and clear what
    interrupted builds left behind."""
    with locked_folder(out, LOCK_NAME):
        remove_stale_temporaries(out, [CSV_NAME, SUMMARY_NAME, PAGE_NAME])
        remove_stale_temporaries(out / PLOTS, ["*.png"])
        yield


def check_one_run_scored_once(rows_of: dict[Path, list]) -> None:
    """Refuse two results files of one name (one lm-eval run: the name is its time stamp) that
    give its tasks other values, naming both paths: a run and its copy from `copy-tasks rescore`.
    The leaderboard takes one scoring of a run; which one is the user's choice."""
    by_name: dict[str, list[Path]] = {}
    for path in rows_of:
        by_name.setdefault(path.name, []).append(path)
    for paths in by_name.values():
        scorings = {path: {(row.task, row.metric): (row.value, row.stderr) for row in rows_of[path]}
                    for path in paths}
        first = paths[0]
        for other in paths[1:]:
            if scorings[other] != scorings[first]:
                raise LeaderboardFileError(
                    f"{first} and {other} are one lm-eval run scored twice with different values (a copy from "
                    "copy-tasks rescore and its original, say): give the leaderboard one of them; nothing was written")


class NoResults(Exception):
    """No input holds an lm-eval results file: nothing to build, nothing written."""


@dataclass
class Report:
    """What a build did: problems with input files, and notes on merging."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def skipped_files(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.skipped]


def build_leaderboard(inputs: list[Path], out: Path, replace: bool = False,
                      names: Sequence[NameRule] = (), made_by: str = "") -> Report:
    """Read the results under `inputs`, merge their rows into `out/leaderboard.csv`, name each
    model (`names`: `--name` rules; `copy_tasks.report.display_names`), and write the plots, `summary.md`
    and `index.html` from the merged rows; `made_by` (Markdown: the suite's command and docs) opens
    the summary and the page."""
    report = Report()
    files, report.problems = find_result_files(inputs)
    if not files:
        raise NoResults("; ".join(map(str, report.problems)) + "; nothing was written")
    new_rows, read, rows_of = [], {}, {}
    for path in files:
        rows, problems = rows_from_file(path)
        new_rows += rows
        rows_of[path] = rows
        read.update({(row.run, row.source_file): path for row in rows})
        report.problems += problems
    if not new_rows and len(report.skipped_files) == len(files):
        raise NoResults("; ".join(map(str, report.problems)) + "; nothing was written")
    check_one_run_scored_once(rows_of)
    prepare_out(out)
    with locked(out):
        existing = read_csv(out / CSV_NAME)
        sections = read_sections(out)
        merged, report.notes = merge(existing, format_rows(new_rows), replace=replace)
        merged, naming = with_names(merged, existing, list(names))
        report.notes += naming
        shown, run_notes = latest_runs(merged)
        report.notes += run_notes
        plots = all_plots(shown)
        more_tables = [*order_gap_markdown(shown), *query_accuracy_markdown(shown), *state_size_markdown(shown),
                       *memory_markdown(shown)]
        summary = summary_markdown(shown, sorted(plots), run_notes, sections, more_tables, made_by)
        page_sections = ["\n".join(more_tables), *sections] if more_tables else sections
        page = page_html(shown, plots, run_notes, result_links(read, out), page_sections,
                         section_plots(out, sections, plots), made_by)
        outputs = {out / CSV_NAME: csv_text(merged), **{out / PLOTS / name: png for name, png in plots.items()},
                   out / SUMMARY_NAME: summary, out / PAGE_NAME: page}
        try:
            write_all_atomically(outputs)  # all of them or none: the CSV, plots, summary and page agree
        except OSError as error:
            raise LeaderboardFileError(f"{out}: cannot write the leaderboard: {error.filename or 'a file'} "
                                       f"({error.strerror or error}); nothing was changed") from None
    return report


def _name_argument(text: str) -> NameRule:
    try:
        return name_rule(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="copy-tasks leaderboard", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="lm-eval results files, or folders holding them")
    parser.add_argument("--out", type=Path, required=True, help="the leaderboard folder")
    parser.add_argument("--replace", action="store_true",
                        help="new runs replace earlier runs of the same model and task in the CSV "
                        "(by default every run stays and the summary shows the latest)")
    parser.add_argument("--name", action="append", default=[], type=_name_argument, metavar="PATTERN=LABEL",
                        help="show models whose id or folder name matches PATTERN (shell-style: *, ?) as LABEL; "
                        "repeatable, the first match wins, and the name holds in later builds")
    args = parser.parse_args(argv)
    with one_line_errors("copy-tasks leaderboard", {LeaderboardFileError: 2, NoResults: 1}):
        report = build_leaderboard(args.results, args.out, replace=args.replace, names=args.name)
    for problem in report.problems:
        print(f"copy-tasks leaderboard: {problem}", file=sys.stderr)
    for note in report.notes:
        print(f"copy-tasks leaderboard: {note}", file=sys.stderr)
    print(f"copy-tasks leaderboard: wrote {args.out / CSV_NAME}, {args.out / SUMMARY_NAME}, {args.out / PAGE_NAME}",
          file=sys.stderr)
    if report.skipped_files:
        raise SystemExit(1)
