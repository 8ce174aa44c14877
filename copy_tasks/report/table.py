"""The leaderboard CSV: its columns, how rows merge, and atomic writes.

Tidy long format: one row per (run, model, task, length, metric). A row's key is
(run, task, metric); the run is `<model>@<date of the lm-eval run>`, so two runs of one model
are two sets of rows. Merging new rows into an existing CSV adds rows and never drops or
changes one silently: a new row whose key is in the CSV with other values is a conflict, and
the build stops with the CSV as it was (`MergeConflict`), unless `replace` is asked for, in
which case the new rows of a (model, backend, task) replace that model's earlier rows of the
task. Rows that differ only in the file they came from (the same results under two names)
are one row. An existing CSV with two rows of one key, or a row with an empty key cell, is
refused. Rows are sorted by family, variant, model, length, metric and run, so the same
results always give the same bytes.

Text cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab
or a carriage return) are written with a leading `'`; numeric columns are written as numbers.

    >>> spreadsheet_safe("=HYPERLINK(1)"), spreadsheet_safe("gemma")
    ("'=HYPERLINK(1)", 'gemma')
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from copy_tasks.common.files import TEMPORARY_SUFFIX
from copy_tasks.report.display_names import NameRule, default_name, name_clashes, names_of_models, naming_notes
from copy_tasks.report.schema import COLUMNS, NUMERIC_COLUMNS, SCHEMA_VERSION, UPGRADABLE_SCHEMAS, LeaderboardRow

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
KEY = ("run", "task", "metric")


class LeaderboardFileError(Exception):
    """An existing leaderboard CSV this version cannot merge into (it is left untouched)."""


class NameConflict(LeaderboardFileError):
    """Names that would show different models as one (nothing is written)."""


class MergeConflict(LeaderboardFileError):
    """New rows that would change rows of the CSV, or disagree among themselves (nothing is written)."""


def spreadsheet_safe(text: str) -> str:
    """A text cell that spreadsheets show as text, never run as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def as_written(cell: str) -> str:
    """A text cell as it was before `spreadsheet_safe` (for the summary and plots).

    >>> as_written(spreadsheet_safe("=HYPERLINK(1)")), as_written("gemma")
    ('=HYPERLINK(1)', 'gemma')
    """
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def _cell(column: str, value: object) -> str:
    if value is None:
        return ""
    if column in NUMERIC_COLUMNS and isinstance(value, (int, float)):
        return repr(value)
    return spreadsheet_safe(str(value))


def row_key(row: dict) -> tuple[str, ...]:
    return tuple(str(row[column]) for column in KEY)


def _sort_key(row: dict) -> tuple:
    def number(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            return float("inf")

    return (row["family"], row["variant"], row["model"], number(row["length"]), row["metric"],
            row["run"], row["task"])


def format_rows(rows: list[LeaderboardRow]) -> list[dict]:
    """Rows as the CSV's text cells, with the schema version."""
    formatted = []
    for row in rows:
        cells = row.cells()
        formatted.append({column: SCHEMA_VERSION if column == "schema_version" else _cell(column, cells[column])
                          for column in COLUMNS})
    return formatted


def read_csv(path: Path) -> list[dict]:
    """The rows of an existing leaderboard CSV (text cells), or [] when there is none. A CSV
    this version cannot merge into (other columns, a cut or extra field, not UTF-8) is an
    error naming the file and the line, and the file is left as it is."""
    if not path.exists():
        return []
    keep = "it was left as it is: repair it or write to another --out folder"
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if (reader.fieldnames or [""])[0].startswith("\ufeff"):
                raise LeaderboardFileError(f"{path}: starts with a byte-order mark (a spreadsheet's \"UTF-8 with "
                                           f"BOM\"); {keep}: save it as plain UTF-8")
            columns = tuple(reader.fieldnames or ())
            upgrading = next((version for version, old in UPGRADABLE_SCHEMAS.items()
                              if columns == ("schema_version", *old)), None)
            if columns != COLUMNS and upgrading is None:
                raise LeaderboardFileError(
                    f"{path}: its columns are not those of leaderboard schema {SCHEMA_VERSION}; {keep}")
            rows = list(reader)
    except UnicodeDecodeError as error:
        raise LeaderboardFileError(f"{path}: not UTF-8 text (byte {error.start}); {keep}") from None
    except csv.Error as error:
        raise LeaderboardFileError(f"{path}: not a readable CSV ({error}); {keep}") from None
    lines_of: dict[tuple[str, ...], int] = {}
    for line, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            what = "more fields than columns" if None in row else "fewer fields than columns (cut short?)"
            raise LeaderboardFileError(f"{path}, line {line}: {what}; {keep}")
        if empty := [column for column in KEY if not row[column]]:
            raise LeaderboardFileError(f"{path}, line {line}: empty {', '.join(empty)} (a row's key is "
                                       f"{', '.join(KEY)}); {keep}")
        if (first := lines_of.setdefault(row_key(row), line)) != line:
            raise LeaderboardFileError(f"{path}, lines {first} and {line}: the same {' / '.join(KEY)} "
                                       f"({' / '.join(row_key(row))}) twice; {keep}")
    versions = {row["schema_version"] for row in rows}
    if versions - {upgrading or SCHEMA_VERSION}:
        raise LeaderboardFileError(
            f"{path}: schema version {', '.join(sorted(versions))}, this copy-tasks writes "
            f"{SCHEMA_VERSION}; it was left as it is: write to another --out folder"
        )
    return rows if upgrading is None else [upgraded(row) for row in rows]


def upgraded(row: dict) -> dict:
    """A row of an older schema as a row of this one (schema 1 had no `name`: the default;
    schemas 1 and 2 no `state_bits`, 1 to 3 no `state_bits_per_token`: empty, as a run that
    recorded none).

    >>> row = upgraded({**{c: "" for c in UPGRADABLE_SCHEMAS["1"]}, "schema_version": "1", "model": "/m/gemma"})
    >>> row["schema_version"], row["name"], row["state_bits"], row["state_bits_per_token"], list(row)[:4]
    ('4', 'gemma', '', '', ['schema_version', 'run', 'model', 'name'])
    """
    cells = {**row, "schema_version": SCHEMA_VERSION}
    cells.setdefault("name", spreadsheet_safe(default_name(as_written(row["model"]))))
    return {column: cells.get(column, "") for column in COLUMNS}


def with_names(rows: list[dict], earlier: list[dict], rules: list[NameRule]) -> tuple[list[dict], list[str]]:
    """The rows with every row of a model under its one name (`display_names.names_of_models`: a
    `--name` rule, else the name `earlier` rows of the CSV carry, else the default), and notes.
    A name that several models would share is a `NameConflict`: the summary and plots show a
    name as one model.

    >>> rows, notes = with_names([{"model": "/a/b/gemma", "name": "gemma"}], [], [])
    >>> rows[0]["name"], notes
    ('gemma', [])
    """
    recorded: dict[str, list[str]] = {}
    for row in earlier:
        recorded.setdefault(as_written(row["model"]), []).append(as_written(row["name"]))
    names = names_of_models({as_written(row["model"]) for row in rows}, recorded, rules)
    if clashes := name_clashes(names, rules):
        raise NameConflict("; ".join(clashes) + ": a name shows one model, give each its own with --name "
                           "PATTERN=LABEL; nothing was written")
    named = [{**row, "name": spreadsheet_safe(names[as_written(row["model"])])} for row in rows]
    return named, naming_notes(names, rules)


def same_row(first: dict, second: dict) -> bool:
    """Whether two rows say the same, wherever they were read from and whatever they are named."""
    return all(first[column] == second[column] for column in COLUMNS if column not in ("source_file", "name"))


SHOWN_DIFFERENCES = 2  # columns named per conflicting row; more are counted


def differences(first: dict, second: dict, where_first: str, where_second: str) -> str:
    """The columns in which two rows of one key differ, each with both values.

    >>> differences({"value": "1.0", "state_bits": "64"}, {"value": "1.0", "state_bits": ""}, "the CSV", "r.json")
    'state_bits 64 in the CSV, empty in r.json'
    """
    columns = [column for column in COLUMNS if column not in ("source_file", "name")
               and first.get(column) != second.get(column)]
    shown = [f"{column} {first.get(column) or 'empty'} in {where_first}, {second.get(column) or 'empty'} in "
             f"{where_second}" for column in columns[:SHOWN_DIFFERENCES]]
    more = f" (and {len(columns) - SHOWN_DIFFERENCES} more columns)" if len(columns) > SHOWN_DIFFERENCES else ""
    return " and ".join(shown) + more


def _conflict(what: str, conflicts: list[tuple[tuple[str, ...], dict, dict]], in_csv: bool) -> MergeConflict:
    shown = "; ".join(f"{' / '.join(key)}: " + differences(first, second, "the CSV" if in_csv else first["source_file"],
                                                          second["source_file"])
                      for key, first, second in conflicts[:3])
    more = f" (and {len(conflicts) - 3} more)" if len(conflicts) > 3 else ""
    advice = ("rebuild with --replace to take the new runs' values, or build into another --out folder" if in_csv
              else "give the leaderboard one of the files that hold them (--replace replaces rows of the CSV only)")
    return MergeConflict(f"{len(conflicts)} new rows {what} ({shown}{more}); nothing was written: {advice}")


def _unique_new(new: list[dict]) -> tuple[list[dict], list[str]]:
    """The new rows, each key once: rows that differ only in their file are one (noted); rows of
    one key that say different things are a conflict."""
    first_of: dict[tuple[str, ...], dict] = {}
    copies: dict[tuple[str, ...], set[str]] = {}
    conflicts = []
    for row in new:
        key = row_key(row)
        first = first_of.setdefault(key, row)
        if first is row:
            continue
        if same_row(first, row):
            copies.setdefault(first["source_file"], set()).add(row["source_file"])
        else:
            conflicts.append((key, first, row))
    if conflicts:
        raise _conflict("disagree with other new rows of the same run, task and metric", conflicts, in_csv=False)
    notes = [f"the same results are in {name} and {', '.join(sorted(others - {name}))}: read once" if others - {name}
             else f"the same results are in more than one file named {name}: read once"
             for name, others in sorted(copies.items())]
    return list(first_of.values()), notes


def merge(existing: list[dict], new: list[dict], replace: bool = False) -> tuple[list[dict], list[str]]:
    """Existing rows plus new ones (text cells), and notes on what was kept or replaced; a
    `MergeConflict` when a new row would change an existing one (without `replace`)."""
    new, notes = _unique_new(new)
    new_keys = {row_key(row) for row in new}
    if replace:
        replaced = {(row["model"], row["backend"], row["task"]) for row in new}
        kept = [row for row in existing
                if (row["model"], row["backend"], row["task"]) not in replaced or row_key(row) in new_keys]
        if len(kept) < len(existing):
            notes.append(f"--replace: {len(existing) - len(kept)} rows of earlier runs replaced")
        existing = kept
    by_key = {row_key(row): row for row in existing}
    added, conflicts = 0, []
    for row in new:
        key = row_key(row)
        old = by_key.get(key)
        if old is None:
            by_key[key] = row
            added += 1
        elif not same_row(old, row):
            if replace:
                by_key[key] = row
            else:
                conflicts.append((key, old, row))
    if conflicts:
        raise _conflict("have the run, task and metric of a row already in the CSV, with other values", conflicts,
                        in_csv=True)
    notes.append(f"{added} rows added, {len(by_key) - added} already there")
    return sorted(by_key.values(), key=_sort_key), notes


def csv_text(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def remove_stale_temporaries(folder: Path, names: list[str]) -> list[Path]:
    """Remove what an interrupted `write_atomically` of these file names left in `folder`
    (call it only while no other writer can be at work: under the leaderboard's lock)."""
    stale = [path for name in names for path in folder.glob(f".{name}.*{TEMPORARY_SUFFIX}") if path.is_file()]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
