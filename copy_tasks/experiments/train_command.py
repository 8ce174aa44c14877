"""`copy-tasks train`: train the paper's six architectures from scratch, one model per task and
seed (`copy_tasks.experiments.training`), score them through plain `lm_eval`
(`train_evaluation`), and report the paper's synthetic experiments (`train_report`).

    copy-tasks train --out runs/train                     # the full recipe: about 3 hours on 2 cores
    copy-tasks train --out runs/train --quick             # tiny models (tests): about 3 minutes on 2 cores
    copy-tasks train --out runs/train --recipe gpu        # a million copy examples, the paper's lengths: for a GPU
    copy-tasks train --out runs/train --leaderboard leaderboard/   # and publish the rows
    copy-tasks train --out runs/train --report-only       # rebuild the report of a finished run
    copy-tasks train --out runs/mqar --recipe mqar        # Zoology's MQAR: recall against state, 20 models

Into `--out` it writes the models (`<task>/<architecture>/seed-<N>/final/`, and the copy
models' checkpoints `step-<N>/`, each loadable by `lm_eval --model hf` with its log and
summary), the run's record (the recipe's name, every model's summary), the lm-eval results of
every evaluation (`results/<label>/`, their output in `logs/`), and its report with its plots:
`training.json` and `experiments.md` for the paper's tasks, `training_<tasks>.json` and
`experiments_<tasks>.md` for others (`record_name`), so that a folder holds one run of each
task set (a folder written before these names: its `training.json` is read as the run of the
tasks it records). A run in the folder of an earlier one keeps the models that one finished; a
run of another recipe, or of tasks overlapping another run's, is refused before it trains.
`--report-only` rebuilds every report in the folder. With `--leaderboard DIR`, the final
models' and the reference models' results join DIR/results/trained/ and DIR is rebuilt, with
the experiments as a section of its summary.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from copy_tasks.experiments.lm_eval_runner import LmEvalFailed
from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES
from copy_tasks.experiments.train_evaluation import evaluations, progress, run_scores, score_all
from copy_tasks.experiments.train_report import Report
from copy_tasks.experiments.training_jobs import SUMMARY, train_all
from copy_tasks.experiments.training_tasks import PAPER_TASKS, TRAINING_TASKS, section
from copy_tasks.probes.options import one_line_errors
from copy_tasks.report.results import UnreadableResults
from copy_tasks.report.table import LeaderboardFileError

RUN_MARKER = "copy_tasks_train.json"  # in a folder `copy-tasks train` made: its runs' start times
RECORD_GLOB = "training*.json"  # a run's record: `record_name`


class TrainError(Exception):
    """What a `copy-tasks train` cannot do, in one line."""


def claim_run_folder(out: Path, recipe_name: str, tasks: tuple[str, ...]) -> Path:
    """Make `out` this run's folder and return the file of the run's record (`record_file`): a
    new or empty folder, or one that holds an earlier run of ours (said on stderr: the models it
    finished are kept, so an interrupted run resumes). Any other folder, or a file, is refused:
    a run writes nowhere else; so is a folder of another recipe, or of overlapping tasks."""
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime())
    if out.exists() and not out.is_dir():
        raise TrainError(f"--out {out} is a file; give a new or empty folder, or one of an earlier run")
    marker = out / RUN_MARKER
    runs = []
    if out.is_dir() and any(out.iterdir()):
        if not marker.is_file():
            raise TrainError(f"--out {out} is not empty and holds no copy-tasks train run (no {RUN_MARKER}); "
                             "give a new or empty folder, or one of an earlier run")
        try:
            runs = json.loads(marker.read_text())["runs"]
        except (OSError, ValueError, KeyError, TypeError):
            raise TrainError(f"{marker} is damaged; give a new folder") from None
        record = record_file(out, recipe_name, tasks)
        earlier = runs[-1] if runs else "unknown"
        print(f"copy-tasks train: {out} holds an earlier run (started {earlier}); this run keeps the models it "
              f"finished, trains the others and scores them all again", file=sys.stderr)
    else:
        record = out / record_name(tasks)
    try:
        out.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"runs": [*runs, stamp]}))
    except OSError as error:
        raise TrainError(f"--out {out}: cannot write there ({error.strerror})") from None
    return record


def record_name(tasks: tuple[str, ...]) -> str:
    """The name of a run's record, by its tasks (its report's: `report_file`): the paper's tasks
    (and more) keep the name they had before task sets had names of their own, other sets are
    named after their leading task (as `section_name`).

    >>> record_name(PAPER_TASKS), record_name(("mqar",)), report_file(Path(record_name(("mqar",)))).name
    ('training.json', 'training_mqar.json', 'experiments_mqar.md')
    """
    return section_name(tasks).removesuffix(".md") + ".json"


def report_file(record: Path) -> Path:
    """The report beside a record: `training_mqar.json` -> `experiments_mqar.md`."""
    return record.with_name("experiments" + record.stem.removeprefix("training") + ".md")


def record_file(out: Path, recipe_name: str, tasks: tuple[str, ...]) -> Path:
    """The file of the record of a run of `tasks` into the folder `out` of earlier runs: the
    record of the same tasks there (of any name: one written before `record_name`), else the
    name `record_name` gives. Refused: a folder that holds another recipe's run or models (they
    would be overwritten), a run of other tasks overlapping these (the two reports would mix),
    or a record of other tasks under that name (a folder written before `record_name`)."""
    recipes = {path: recipe for path, recipe in recorded_recipes(out).items() if recipe != recipe_name}
    if recipes:
        path, recipe = next(iter(recipes.items()))
        raise TrainError(f"--out {out} holds a run of recipe {recipe} ({path.relative_to(out)}); recipe "
                         f"{recipe_name} would overwrite its models: give another folder, or --recipe {recipe}")
    name = out / record_name(tasks)
    for path, recorded in recorded_task_sets(out).items():
        if set(recorded) == set(tasks):
            return path
        if set(recorded) & set(tasks) or path == name:
            raise TrainError(f"--out {out} holds the run of tasks {','.join(recorded)} ({path.name}); a run of "
                             f"tasks {','.join(tasks)} would replace its report: give the same tasks, or another "
                             "folder")
    return name


def recorded_recipes(out: Path) -> dict[Path, str]:
    """The recipe of every record and every trained model's summary in `out` (those readable)."""
    found = {}
    for path in sorted(out.glob(RECORD_GLOB)) + sorted(out.glob(f"*/*/seed-*/{SUMMARY}")):
        try:
            found[path] = str(json.loads(path.read_text())["recipe"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def recorded_task_sets(out: Path) -> dict[Path, tuple[str, ...]]:
    """The tasks of every readable record in `out`."""
    found = {}
    for path in sorted(out.glob(RECORD_GLOB)):
        try:
            found[path] = recorded_tasks(json.loads(path.read_text()))
        except (OSError, ValueError, AttributeError, TypeError):
            continue
    return found


def check_leaderboard(leaderboard: Path | None) -> None:
    """Refuse, before anything is trained or written, a `--leaderboard` that is a file or holds
    a file where `publish` makes a folder."""
    if leaderboard is None:
        return
    from copy_tasks.report.build import PLOTS, SECTIONS

    for folder in (leaderboard, leaderboard / "results", leaderboard / "results" / "trained", leaderboard / PLOTS,
                   leaderboard / SECTIONS):
        if folder.exists() and not folder.is_dir():
            raise TrainError(f"--leaderboard {leaderboard}: {folder} is a file; give a leaderboard folder (new, or "
                             "one `copy-tasks leaderboard` wrote)")


def run(recipe_name: str, out: Path, architectures: tuple[str, ...], leaderboard: Path | None,
        tasks: tuple[str, ...] = PAPER_TASKS, workers: int | None = None) -> dict:
    recipe = RECIPES[recipe_name]
    check_leaderboard(leaderboard)
    record_path = claim_run_folder(out, recipe_name, tasks)
    started = time.perf_counter()
    summaries = train_all(recipe_name, out, architectures, report=progress, tasks=tasks, workers=workers)
    training_seconds = time.perf_counter() - started
    runs = evaluations(recipe, out, architectures, tasks)
    progress(f"trained {len(summaries)} models in {training_seconds:.0f} s; scoring them in {len(runs)} lm-eval runs")
    scores = score_all(recipe, out, runs, report=progress, workers=workers)
    record = {"recipe": recipe_name, "architectures": list(architectures), "tasks": list(tasks), "models": summaries,
              "training_seconds": training_seconds, "total_seconds": time.perf_counter() - started}
    progress(f"trained and scored in {record['total_seconds']:.0f} s")
    return report(record, scores, record_path, leaderboard)


def report(record: dict, scores: dict, record_path: Path, leaderboard: Path | None) -> dict:
    """Write the report (`report_file`), its plots and the record into the record's folder
    (and publish them)."""
    out = record_path.parent
    built = Report(RECIPES[record["recipe"]], record["recipe"], scores, record["models"], record["architectures"],
                   recorded_tasks(record))
    markdown = built.markdown()
    plots = built.plots()
    for name, png in plots.items():
        (out / name).write_bytes(png)
    markdown += "\n" + "\n".join(f"![{name}]({name})" for name in plots) + "\n"
    report_file(record_path).write_text(markdown)
    record = {**record, "figures": built.figures}
    record_path.write_text(json.dumps(record, indent=1))
    if leaderboard is not None:
        publish(out, leaderboard, markdown, list(plots), section_name(recorded_tasks(record)))
    progress(f"experiments in {report_file(record_path)}")
    return record


def recorded_tasks(record: dict) -> tuple[str, ...]:
    """The tasks a run trained: as recorded, or the paper's (a run recorded before `--tasks`)."""
    return tuple(record.get("tasks") or PAPER_TASKS)


def section_name(tasks: tuple[str, ...]) -> str:
    """The leaderboard section a run's experiments become, its leading task's (`TrainingTask.section`):
    `training.md` for a run of the paper's tasks, else one named after its task, so that one run
    does not replace another's section.

    >>> section_name(PAPER_TASKS), section_name(("mqar",)), section_name((*PAPER_TASKS, "mqar"))
    ('training.md', 'training_mqar.md', 'training.md')
    """
    return section(tasks) + ".md"


def publish(out: Path, leaderboard: Path, markdown: str, plot_names: list[str], section: str = "training.md") -> None:
    """Add the final models' and the reference models' results to the leaderboard and rebuild
    it, with the experiments as a section of its summary."""
    from copy_tasks.report.build import SECTIONS, build_leaderboard

    target = leaderboard / "results" / "trained"
    for folder in sorted((out / "results").iterdir()):
        if "-step" not in folder.name:  # the final models and the reference models, not the checkpoints
            shutil.copytree(folder, target / folder.name, dirs_exist_ok=True)
    (leaderboard / "plots").mkdir(parents=True, exist_ok=True)
    for name in plot_names:
        shutil.copy(out / name, leaderboard / "plots" / name)
    (leaderboard / SECTIONS).mkdir(exist_ok=True)
    (leaderboard / SECTIONS / section).write_text(markdown.replace("](training_", "](plots/training_"))
    build_leaderboard([leaderboard / "results"], leaderboard)


def report_again(out: Path, leaderboard: Path | None) -> list[dict]:
    """The reports of the finished runs in a folder (each task set's) rebuilt from it (their
    records and the lm-eval results), without training or scoring anything: after a change to
    the report itself. Every record is checked before any report is written."""
    check_leaderboard(leaderboard)
    records, results = sorted(out.glob(RECORD_GLOB)), out / "results"
    if not records:
        raise TrainError(f"--report-only: {out} holds no training.json (no finished run)")
    if not results.is_dir():
        raise TrainError(f"--report-only: {out} holds no results/ (its models were never scored)")
    try:
        scores = {folder.name: run_scores(folder) for folder in sorted(results.iterdir()) if folder.is_dir()}
    except UnreadableResults as error:
        raise TrainError(f"--report-only: {error}") from None
    finished_runs = [(finished_record(path, scores), path) for path in records]
    return [report(record, scores, path, leaderboard) for record, path in finished_runs]


def finished_record(record_path: Path, scores: dict) -> dict:
    """The record of a finished run, checked against its folder's scores."""
    try:
        record = json.loads(record_path.read_text())
        RECIPES[record["recipe"]], record["models"][0]["task"], record["architectures"][0]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        raise TrainError(f"--report-only: {record_path} is damaged (not the JSON a finished run writes)") from None
    runs = evaluations(RECIPES[record["recipe"]], record_path.parent, record["architectures"], recorded_tasks(record))
    if missing := [run.label for run in runs if run.label not in scores]:
        raise TrainError(f"--report-only: {record_path.parent / 'results'} has no results of {', '.join(missing[:5])}"
                         + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    return record


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="copy-tasks train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for models, logs and results")
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="full")
    parser.add_argument("--quick", action="store_const", dest="recipe", const="quick", help="--recipe quick")
    parser.add_argument("--models", default=None,
                        help=f"comma-separated subset of {', '.join(ARCHITECTURES)} (default: the recipe's; recipe "
                        f"mqar: {', '.join(RECIPES['mqar'].architectures)}; the others: all six)")
    parser.add_argument("--tasks", default=None,
                        help=f"comma-separated subset of {', '.join(TRAINING_TASKS)} (default: the recipe's: the "
                        f"paper's, {', '.join(PAPER_TASKS)}; recipe mqar: mqar)")
    parser.add_argument("--workers", type=int, default=None,
                        help="training jobs (and lm-eval runs) at once, one torch thread each (default: the recipe's)")
    parser.add_argument("--leaderboard", type=Path, default=None,
                        help="a leaderboard folder to add the final models' results to")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the reports of the finished runs in --out from their results; train nothing")
    args = parser.parse_args(argv)
    recipe = RECIPES[args.recipe]
    args.models = args.models if args.models is not None else ",".join(recipe.architectures)
    args.tasks = args.tasks if args.tasks is not None else ",".join(recipe.tasks())
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers {args.workers}: give 1 or more")
    architectures = tuple(name.strip() for name in args.models.split(",") if name.strip())
    unknown = [name for name in architectures if name not in ARCHITECTURES]
    if unknown or not architectures:
        parser.error(f"--models: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(ARCHITECTURES)}")
    tasks = tuple(dict.fromkeys(name.strip() for name in args.tasks.split(",") if name.strip()))
    if (unknown := [name for name in tasks if name not in TRAINING_TASKS]) or not tasks:
        parser.error(f"--tasks: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(TRAINING_TASKS)}")
    if 0 < len(set(tasks) & set(PAPER_TASKS)) < len(PAPER_TASKS):  # their report compares the three
        parser.error(f"--tasks {args.tasks}: the paper's tasks ({', '.join(PAPER_TASKS)}) are trained together or "
                     "not at all; add the others, or give mqar alone")
    if untrained := [name for name in tasks if name not in recipe.phases]:
        others = [name for name, other in sorted(RECIPES.items()) if set(untrained) <= set(other.phases)]
        parser.error(f"--tasks {args.tasks}: recipe {args.recipe} trains {', '.join(recipe.phases)}, not "
                     f"{', '.join(untrained)}" + (f"; use --recipe {' or '.join(others)}" if others else ""))
    with one_line_errors("copy-tasks train", {TrainError: 2, LeaderboardFileError: 2, LmEvalFailed: 1}):
        if args.report_only:
            report_again(args.out.resolve(), args.leaderboard)
        else:
            run(args.recipe, args.out.resolve(), architectures, args.leaderboard, tasks, args.workers)
