"""Find and read lm-eval's results files: the one module of copy-tasks that reads them.

`lm_eval --output_path DIR` writes `DIR/<model>/results_<date>.json` (`--output_path
DIR/<name>.json`: `DIR/<name>_<date>.json`), and with `--log_samples` a
`samples_<task>_<date>.jsonl` beside it per task. A results file holds, per task, the metric
values and stderrs (keyed by metric and filter: `copy_tasks.harness.lm_eval_internals.results_key`), the task
configs (whose `metadata` carries what our tasks recorded: `copy_tasks.probes.options.Recorded`),
and the run's model and settings. Here: finding them (`find_result_files`), reading them
(`read_results`, `read_samples`, `samples_beside`, `metric_scores`), and writing the
machine's paths out of them (`redact_config_paths`). What cannot be read is an
`UnreadableResults` naming why; `copy_tasks.report.rows` turns results into leaderboard rows.
"""

from __future__ import annotations

import glob
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from copy_tasks.harness.lm_eval_internals import results_key


@dataclass(frozen=True)
class Problem:
    """A file, or part of one, that could not be used as given, and why."""

    path: str
    message: str
    skipped: bool = False  # the whole file was left out

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"



class UnreadableResults(Exception):
    """A results or samples file that cannot be read as JSON; the message says why."""


# lm-eval names a results file `<prefix>_<date id>.json`, the date id being
# `datetime.now().isoformat()` with `-` for `:`; the prefix is `results` unless `--output_path`
# named a file. The samples beside it are `samples_<task>_<date id>.jsonl`.
RESULTS_NAME = re.compile(r"^(?P<prefix>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$")


def run_stamp(path: Path) -> str:
    """The date id lm-eval put in a results file's name (the name's stem if it has none).

    >>> run_stamp(Path("myres_2026-12-01T10-00-00.123456.json")), run_stamp(Path("results_x.json"))
    ('2026-12-01T10-00-00.123456', 'x')
    """
    match = RESULTS_NAME.match(path.name)
    return match["stamp"] if match else path.stem.removeprefix("results_")


def _results_in(folder: Path) -> set[Path]:
    """The results files lm-eval wrote under a folder: `results_*.json`, and any
    `<name>_<date id>.json` (from an `--output_path` that named a file); regular files only (a
    FIFO or a device of that name would block a read forever)."""
    return {path for path in folder.rglob("*.json")
            if (path.name.startswith("results_") or RESULTS_NAME.match(path.name)) and path.is_file()}


def find_result_files(inputs: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Every results file under the given folders, the given files, and the files lm-eval
    wrote for a given `--output_path` that named a file (`DIR/name.json` -> `DIR/name_<date>.json`),
    in sorted order. An input that holds none is a problem, named."""
    found, problems = set(), []
    for item in inputs:
        if item.is_dir():
            in_folder = _results_in(item)
            if not in_folder:
                problems.append(Problem(str(item), "holds no lm-eval results file (results_*.json, or "
                                                   "<name>_<date>.json for an --output_path ending in .json)",
                                        skipped=True))
            found.update(in_folder)
        elif item.is_file():
            found.add(item)
        elif item.exists():
            problems.append(Problem(str(item), "is not a regular file or folder (a FIFO, a device?); skipped",
                                    skipped=True))
        elif item.suffix == ".json" and (written := sorted(
                path for path in item.parent.glob(f"{glob.escape(item.stem)}_*.json")
                if (match := RESULTS_NAME.match(path.name)) and match["prefix"] == item.stem)):
            found.update(written)
        else:
            problems.append(Problem(str(item), "no such file or folder", skipped=True))
    return sorted(found), problems



def read_results(path: Path) -> Any:
    """The JSON of a results file (what it holds is checked by its reader)."""
    if not path.is_file():
        raise UnreadableResults("is not a regular file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableResults(f"cannot be read ({error})") from None
    except json.JSONDecodeError as error:
        raise UnreadableResults(f"is not valid JSON, perhaps truncated ({error})") from None
    except RecursionError:
        raise UnreadableResults("is JSON nested too deeply to be lm-eval results") from None
    except ValueError as error:  # an integer of more digits than Python converts (4,300)
        raise UnreadableResults(f"holds a value this reader refuses ({str(error).split(';')[0]})") from None


def read_samples(path: Path) -> list[dict]:
    """The logged samples of one task (a `samples_*.jsonl` file), in order."""
    if not path.is_file():
        raise UnreadableResults("is not a regular file")
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise UnreadableResults(f"is not valid JSON lines ({reason})") from None


def samples_file(results_path: Path, task: str) -> Path:
    """Where lm-eval logs a task's samples beside its results file."""
    return results_path.with_name(f"samples_{task}_{run_stamp(results_path)}.jsonl")


def samples_beside(results_path: Path) -> dict[str, Path]:
    """{task: its samples file} for the samples logged beside a results file."""
    stamp = run_stamp(results_path)
    suffix = f"_{stamp}.jsonl"
    return {path.name[len("samples_"):-len(suffix)]: path
            for path in sorted(results_path.parent.glob(f"samples_*_{glob.escape(stamp)}.jsonl"))}


def metric_scores(folder: Path, metric: str = "exact_match") -> dict[str, float | None]:
    """{task: exact match} (or another `metric`) of the newest results file under a run folder."""
    found = _results_in(folder) if folder.is_dir() else set()
    if not found:
        raise UnreadableResults(f"{folder} holds no lm-eval results file")
    newest = max(found, key=lambda path: (run_stamp(path), path.name))
    data = read_results(newest)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise UnreadableResults(f"{newest} is not an lm-eval results file (no \"results\" object)")
    return {task: values.get(results_key(metric)) if isinstance(values, dict) else None
            for task, values in data["results"].items()}


def add_to_task_metadata(path: Path, additions, out: Path) -> list[str]:
    """A copy of a results file, and of the samples logged beside it, in the folder `out`, with
    what `additions(task, metadata)` returns (a dict, or None: nothing) added to each task's
    recorded metadata, never over a value it holds (only where absent or null); the tasks given
    something. Nothing is written when no task is; only new files are written (a name that
    exists in `out`, or a link there, is refused: FileExistsError), never the file read.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> path = folder / "run" / "results_2026-12-05T01-04-01.json"
    >>> path.parent.mkdir()
    >>> _ = path.write_text(json.dumps({"configs": {"t": {"metadata": {"a": 1}}}}))
    >>> add_to_task_metadata(path, lambda task, metadata: {"a": 2, "b": 3}, folder / "out")
    ['t']
    >>> [json.loads(p.read_text())["configs"]["t"]["metadata"] for p in (folder / "out" / path.name, path)]
    [{'a': 1, 'b': 3}, {'a': 1}]
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    given = []
    for task, config in sorted(data.get("configs", {}).items()):
        metadata = config.get("metadata") or {}
        new = {key: value for key, value in (additions(task, metadata) or {}).items()
               if metadata.get(key) is None}
        if new:
            config["metadata"] = {**metadata, **new}
            given.append(task)
    if not given:
        return given
    copies = {out / samples.name: samples for samples in samples_beside(path).values()}
    taken = [str(target) for target in [out / path.name, *copies] if target.exists() or target.is_symlink()]
    if taken:
        raise FileExistsError(f"{', '.join(taken)} exist already; only new files are written")
    out.mkdir(parents=True, exist_ok=True)
    for target, samples in copies.items():
        shutil.copyfile(samples, target)
    (out / path.name).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return given


def redact_config_paths(folder: Path, include: Path | None = None) -> None:
    """Write the task YAML paths lm-eval records (`config_source`) relative to the package (and
    those of an `--include_path` folder `include` as `<its name>/<file>`), so that published
    results name no folder of the machine that ran them.

    >>> import tempfile, copy_tasks
    >>> folder = Path(tempfile.mkdtemp())
    >>> source = copy_tasks.task_config_dir() / "c4" / "c4_copy_25.yaml"
    >>> _ = (folder / "results_x.json").write_text(json.dumps({"config_source": str(source)}))
    >>> redact_config_paths(folder)
    >>> (folder / "results_x.json").read_text()
    '{"config_source": "copy_tasks/task_configs/c4/c4_copy_25.yaml"}'
    """
    from copy_tasks.harness.registration import task_config_dir

    relative = {json.dumps(str(task_config_dir()))[1:-1]: "copy_tasks/task_configs"}
    if include is not None:
        relative[json.dumps(str(include))[1:-1]] = include.name
    for path in sorted(_results_in(folder)):
        text = original = path.read_text(encoding="utf-8")
        for machine_path, written in relative.items():
            text = text.replace(machine_path, written)
        if text != original:
            path.write_text(text, encoding="utf-8")
