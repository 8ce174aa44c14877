"""`copy-tasks train`: train a NoPE transformer, a RoPE transformer and a Mamba-2 from scratch
on our probes (`copy_tasks.experiments.training`), score them through plain `lm_eval`, and report
the paper's three synthetic experiments.

    copy-tasks train --out runs/train                     # the full recipe: about 40 minutes
    copy-tasks train --out runs/train --quick             # about a minute (tests)
    copy-tasks train --out runs/train --leaderboard leaderboard/   # and publish the rows
    copy-tasks train --out runs/train --report-only       # rebuild the report of a finished run

Into `--out` it writes the checkpoints (`<architecture>/examples-<N>/`, each loadable by
`lm_eval --model hf`), `train_log.jsonl` (loss, examples seen, wall time), `training.json`
(parameters, final loss, seconds, the Mamba's state bits), the lm-eval results of every
evaluation (`results/`), and `experiments.md` with its plots:
1. examples needed: exact match on `random_copy` at the training lengths against examples seen;
2. length generalization: `random_copy` of the final models from 10 symbols to 10 x the
   longest training length;
3. prefix against suffix key: `lookup_prefix` and `lookup_suffix` in the authors' format.
`bounded_state` with the Mamba's recurrent state size in bits is scored beside them.
With `--leaderboard DIR`, the final models' and `bounded_state`'s results join DIR/results/
and DIR is rebuilt, with the experiments as a section of its summary.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from copy_tasks.experiments.lm_eval_runner import LmEvalFailed, LmEvalRun, launch, link_models
from copy_tasks.experiments.training import ARCHITECTURES, RECIPES, Recipe, train
from copy_tasks.harness.task_yamls import write_length_tasks
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.lookup import LOOKUP_FORMAT
from copy_tasks.probes.options import DOCS, one_line_errors
from copy_tasks.report.plots import Line, line_plot
from copy_tasks.report.results import UnreadableResults, exact_match_scores
from copy_tasks.report.summary import effective_length

THRESHOLD = 0.9  # exact match at which a model has learned to copy (experiment 1)


def copy_lengths(recipe: Recipe) -> tuple[int, ...]:
    """From the shortest training length to 10 times the longest (experiment 2)."""
    longest = recipe.copy_lengths[1]
    steps = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 5.0, 10.0)
    return tuple(sorted({max(2, round(longest * step)) for step in steps}))


def lookup_lengths(recipe: Recipe) -> tuple[int, ...]:
    """The lookup lengths of experiment 3: within training and up to about 3 times beyond."""
    longest = recipe.lookup_lengths[1]
    return tuple(sorted({max(8, round(longest * step)) for step in (0.33, 0.67, 1.0, 1.67, 3.33)}))


def training_lengths(recipe: Recipe) -> tuple[int, ...]:
    return tuple(sorted({recipe.copy_lengths[1] // 2, recipe.copy_lengths[1]}))


def tasks_for(family: str, lengths, teacher_forced: bool = False) -> list[str]:
    return [FAMILIES[family].task_name(length, teacher_forced) for length in lengths]


def write_tasks(recipe: Recipe, folder: Path) -> None:
    """The lengths the experiments use that do not ship, for `--include_path`."""
    for family, lengths in (("random_copy", copy_lengths(recipe) + training_lengths(recipe)),
                            ("lookup_prefix", lookup_lengths(recipe)), ("lookup_suffix", lookup_lengths(recipe))):
        write_length_tasks(FAMILIES[family], sorted(set(lengths)), folder)


RUN_MARKER = "copy_tasks_train.json"  # in a folder `copy-tasks train` made: its runs' start times
LOG = "train_log.jsonl"


class TrainError(Exception):
    """What a `copy-tasks train` cannot do, in one line."""


def claim_run_folder(out: Path) -> str:
    """Make `out` this run's folder and return the run's stamp: a new or empty folder, or one
    that holds an earlier run of ours (said on stderr; its log is kept as `train_log.<its
    stamp>.jsonl`). Any other folder, or a file, is refused: a run writes nowhere else."""
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
        earlier = runs[-1] if runs else "unknown"
        if (out / LOG).is_file():
            (out / LOG).rename(out / f"train_log.{earlier}.jsonl")
        print(f"copy-tasks train: {out} holds an earlier run (started {earlier}); this run replaces its "
              f"checkpoints and results, and its log is kept as train_log.{earlier}.jsonl", file=sys.stderr)
    try:
        out.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"runs": [*runs, stamp]}))
    except OSError as error:
        raise TrainError(f"--out {out}: cannot write there ({error.strerror})") from None
    return stamp


def lm_eval(model: str, model_args: str, tasks: list[str], docs: int, out: Path, cwd: Path, include: Path) -> dict:
    """One lm-eval run of the experiments, `docs` per task (its output in `logs/<label>.log`
    beside `results/`); {task: exact match}."""
    launch(LmEvalRun(model, tuple(tasks), out, model_args=model_args, batch_size=16, include=include,
                     metadata={DOCS.key: docs, LOOKUP_FORMAT.key: "paper"},
                     device="cpu" if model == "hf" else None), cwd=cwd,
           log=out.parent.parent / "logs" / f"{out.name}.log")
    return exact_match_scores(out)


def evaluate(recipe: Recipe, out: Path, architectures: tuple[str, ...], bits: int | None) -> dict:
    """Every lm-eval run of the experiments; {run label: {task: exact match}}."""
    include, links = out / "tasks", out / "by_name"
    write_tasks(recipe, include)
    scores = {}
    final_tasks = (tasks_for("random_copy", copy_lengths(recipe)) + tasks_for("lookup_prefix", lookup_lengths(recipe))
                   + tasks_for("lookup_suffix", lookup_lengths(recipe)))
    for architecture in architectures:
        for seen in recipe.checkpoints:
            label = f"trained-{architecture}" + ("" if seen == recipe.checkpoints[-1] else f"-{seen}ex")
            link_models(links, {label: out / architecture / f"examples-{seen}"})
            final = seen == recipe.checkpoints[-1]
            tasks = final_tasks if final else tasks_for("random_copy", training_lengths(recipe))
            print(f"copy-tasks train: scoring {label} on {len(tasks)} tasks", file=sys.stderr, flush=True)
            scores[label] = lm_eval("hf", f"pretrained={label}", tasks, recipe.evaluation_docs, out / "results" / label,
                                    links, include)
    if bits is not None:
        label = f"bounded_state-{bits}"
        scores[label] = lm_eval("bounded_state", f"bits={bits}", final_tasks, recipe.evaluation_docs,
                                out / "results" / label, out, include)
    return scores


def _row(values) -> str:
    return " | ".join("-" if value is None else f"{value:.2f}" for value in values)


def experiments_markdown(recipe: Recipe, scores: dict, summaries: dict, architectures, bits) -> tuple[str, dict]:
    """The three experiments as Markdown tables, and the figures they give."""
    figures = {}
    lines = ["## Trained from scratch: the paper's three synthetic experiments", "",
             f"Recipe `{recipe_name(recipe)}`: {recipe.examples:,} examples per model, batch {recipe.batch_size}, "
             f"seed {recipe.seed}; `random_copy` strings of {recipe.copy_lengths[0]} to {recipe.copy_lengths[1]} "
             f"symbols and `lookup_prefix`/`lookup_suffix` strings of {recipe.lookup_lengths[0]} to "
             f"{recipe.lookup_lengths[1]} letters in the authors' format (key 4, answer 4), mixed "
             f"{recipe.mix[0]:.0%}/{recipe.mix[1]:.0%}/{recipe.mix[2]:.0%}; {recipe.evaluation_docs} docs per length, "
             "greedy, scored through `lm_eval`.", "",
             "| model | parameters | final loss | training time (s) |", "|---|---:|---:|---:|"]
    for architecture in architectures:
        summary = summaries[architecture]
        lines.append(f"| {architecture} | {summary['parameters']:,} | {summary['final_loss']:.4f} | "
                     f"{summary['seconds']:.0f} |")
    lengths = training_lengths(recipe)
    lines += ["", f"### 1. Examples needed (exact match on random_copy at {', '.join(map(str, lengths))} symbols)",
              "", "| model | " + " | ".join(f"{seen:,}" for seen in recipe.checkpoints) + " |",
              "|---|" + "---:|" * len(recipe.checkpoints)]
    for architecture in architectures:
        curve = []
        for seen in recipe.checkpoints:
            label = f"trained-{architecture}" + ("" if seen == recipe.checkpoints[-1] else f"-{seen}ex")
            values = [scores[label].get(f"random_copy_{length}") for length in lengths]
            curve.append(sum(values) / len(values) if None not in values else None)
        lines.append(f"| {architecture} | {_row(curve)} |")
        reached = next((seen for seen, value in zip(recipe.checkpoints, curve) if value is not None and
                        value >= THRESHOLD), None)
        figures.setdefault(f"trained-{architecture}", {})["examples_to_90"] = reached
        figures[f"trained-{architecture}"]["examples_curve"] = curve
    labels = [*(f"trained-{architecture}" for architecture in architectures),
              *([f"bounded_state-{bits}"] if bits is not None else [])]
    lengths = copy_lengths(recipe)
    lines += ["", f"### 2. Length generalization (random_copy; trained up to {recipe.copy_lengths[1]} symbols)", "",
              "| model | " + " | ".join(map(str, lengths)) + " | effective length |",
              "|---|" + "---:|" * (len(lengths) + 1)]
    for label in labels:
        curve = [scores[label].get(f"random_copy_{length}") for length in lengths]
        effective = effective_length([(n, v) for n, v in zip(lengths, curve) if v is not None])
        lines.append(f"| {label} | {_row(curve)} | {effective if effective is not None else '<' + str(lengths[0])} |")
        figures.setdefault(label, {})["effective_length"] = effective
        figures[label]["copy_curve"] = curve
    lengths = lookup_lengths(recipe)
    lines += ["", f"### 3. Prefix against suffix key (trained up to {recipe.lookup_lengths[1]} letters)", "",
              "| model | key | " + " | ".join(map(str, lengths)) + " |", "|---|---|" + "---:|" * len(lengths)]
    for label in labels:
        for place in ("prefix", "suffix"):
            curve = [scores[label].get(f"lookup_{place}_{length}") for length in lengths]
            lines.append(f"| {label} | {place} | {_row(curve)} |")
            figures.setdefault(label, {})[f"lookup_{place}"] = curve
        prefix, suffix = figures[label]["lookup_prefix"], figures[label]["lookup_suffix"]
        pairs = [(p, s) for p, s in zip(prefix, suffix) if p is not None and s is not None]
        figures[label]["prefix_minus_suffix"] = sum(p - s for p, s in pairs) / len(pairs) if pairs else None
    lines += ["", "### Figures", "", f"| model | examples to {THRESHOLD:.0%} exact match | effective length | "
              "prefix minus suffix (mean exact match) |", "|---|---:|---:|---:|"]
    for architecture in architectures:
        values = figures[f"trained-{architecture}"]
        reached = f"{values['examples_to_90']:,}" if values["examples_to_90"] else "not reached"
        effective = values["effective_length"]
        effective = f"<{copy_lengths(recipe)[0]}" if effective is None else effective
        gap = "-" if values["prefix_minus_suffix"] is None else f"{values['prefix_minus_suffix']:+.2f}"
        lines.append(f"| trained-{architecture} | {reached} | {effective} | {gap} |")
    lines.append("")
    return "\n".join(lines), figures


def recipe_name(recipe: Recipe) -> str:
    return next(name for name, known in RECIPES.items() if known == recipe)


def plots(recipe: Recipe, figures: dict, architectures, folder: Path) -> list[str]:
    """The three experiments' plots, written to `folder`; their file names."""
    drawings = {
        "training_examples_needed.png": line_plot(
            [Line(architecture, recipe.checkpoints, figures[f"trained-{architecture}"]["examples_curve"])
             for architecture in architectures], "examples seen"),
        "training_length_generalization.png": line_plot(
            [Line(label, copy_lengths(recipe), values["copy_curve"]) for label, values in figures.items()
             if "copy_curve" in values], "string length (symbols)", log_x=True),
        "training_prefix_suffix.png": line_plot(
            [Line(f"{label} {place}", lookup_lengths(recipe), values[f"lookup_{place}"], dashed=place == "suffix")
             for label, values in figures.items() if "lookup_prefix" in values for place in ("prefix", "suffix")],
            "string length (letters)"),
    }
    for name, png in drawings.items():
        (folder / name).write_bytes(png)
    return list(drawings)


def publish(out: Path, leaderboard: Path, markdown: str, plot_names: list[str]) -> None:
    """Add the final models' and bounded_state's results to the leaderboard and rebuild it,
    with the experiments as a section of its summary."""
    from copy_tasks.report.build import SECTIONS, build_leaderboard

    target = leaderboard / "results" / "trained"
    for folder in sorted((out / "results").iterdir()):
        if not folder.name.endswith("ex"):  # the final models and bounded_state, not the checkpoints
            shutil.copytree(folder, target / folder.name, dirs_exist_ok=True)
    (leaderboard / "plots").mkdir(parents=True, exist_ok=True)
    for name in plot_names:
        shutil.copy(out / name, leaderboard / "plots" / name)
    (leaderboard / SECTIONS).mkdir(exist_ok=True)
    (leaderboard / SECTIONS / "training.md").write_text(markdown.replace("](training_", "](plots/training_"))
    build_leaderboard([leaderboard / "results"], leaderboard)


def recurrent_state_bits(summaries: dict) -> int | None:
    """The state size in bits of the run's state-space model (for `bounded_state`), if it has one."""
    return next((summary["state_bits"] for summary in summaries.values() if summary["state_bits"]), None)


def run(recipe_name_: str, out: Path, architectures: tuple[str, ...], leaderboard: Path | None) -> dict:
    recipe = RECIPES[recipe_name_]
    claim_run_folder(out)
    started = time.perf_counter()
    summaries = {}
    for architecture in architectures:
        summaries[architecture] = train(architecture, recipe, out)
        print(f"copy-tasks train: {architecture}: final loss {summaries[architecture]['final_loss']:.4f} after "
              f"{summaries[architecture]['seconds']:.0f} s", file=sys.stderr, flush=True)
    bits = recurrent_state_bits(summaries)
    training_seconds = time.perf_counter() - started
    scores = evaluate(recipe, out, architectures, bits)
    record = {"recipe": recipe_name_, "models": summaries, "training_seconds": training_seconds,
              "total_seconds": time.perf_counter() - started}
    print(f"copy-tasks train: trained and scored in {record['total_seconds']:.0f} s", file=sys.stderr)
    return report(record, scores, out, leaderboard)


def report(record: dict, scores: dict, out: Path, leaderboard: Path | None) -> dict:
    """Write `experiments.md`, its plots and `training.json` into `out` (and publish them)."""
    recipe, summaries = RECIPES[record["recipe"]], record["models"]
    architectures = tuple(summaries)
    bits = recurrent_state_bits(summaries)
    markdown, figures = experiments_markdown(recipe, scores, summaries, architectures, bits)
    plot_names = plots(recipe, figures, architectures, out)
    markdown += "\n" + "\n".join(f"![{name}]({name})" for name in plot_names) + "\n"
    (out / "experiments.md").write_text(markdown)
    record = {**record, "figures": figures}
    (out / "training.json").write_text(json.dumps(record, indent=1))
    if leaderboard is not None:
        publish(out, leaderboard, markdown, plot_names)
    print(f"copy-tasks train: experiments in {out / 'experiments.md'}", file=sys.stderr)
    return record


def report_again(out: Path, leaderboard: Path | None) -> dict:
    """The report of a finished run rebuilt from its folder (`training.json` and the lm-eval
    results), without training or scoring anything: after a change to the report itself."""
    record_file, results = out / "training.json", out / "results"
    if not record_file.is_file():
        raise TrainError(f"--report-only: {out} holds no training.json (no finished run)")
    try:
        record = json.loads(record_file.read_text())
        recipe, models = RECIPES[record["recipe"]], record["models"]
    except (OSError, ValueError, KeyError, TypeError):
        raise TrainError(f"--report-only: {record_file} is damaged (not the JSON a finished run writes)") from None
    if not results.is_dir():
        raise TrainError(f"--report-only: {out} holds no results/ (its models were never scored)")
    try:
        scores = {folder.name: exact_match_scores(folder) for folder in sorted(results.iterdir()) if folder.is_dir()}
    except UnreadableResults as error:
        raise TrainError(f"--report-only: {error}") from None
    wanted = [f"trained-{architecture}" + ("" if seen == recipe.checkpoints[-1] else f"-{seen}ex")
              for architecture in models for seen in recipe.checkpoints]
    if missing := [label for label in wanted if label not in scores]:
        raise TrainError(f"--report-only: {results} has no results of {', '.join(missing)}")
    return report(record, scores, out, leaderboard)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="copy-tasks train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for checkpoints, logs and results")
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="full")
    parser.add_argument("--quick", action="store_const", dest="recipe", const="quick", help="--recipe quick")
    parser.add_argument("--models", default=",".join(ARCHITECTURES),
                        help=f"comma-separated subset of {', '.join(ARCHITECTURES)}")
    parser.add_argument("--leaderboard", type=Path, default=None,
                        help="a leaderboard folder to add the final models' results to")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the report of the finished run in --out from its results; train nothing")
    args = parser.parse_args(argv)
    architectures = tuple(name.strip() for name in args.models.split(",") if name.strip())
    unknown = [name for name in architectures if name not in ARCHITECTURES]
    if unknown or not architectures:
        parser.error(f"--models: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(ARCHITECTURES)}")
    with one_line_errors("copy-tasks train", {TrainError: 2, LmEvalFailed: 1}):
        if args.report_only:
            report_again(args.out.resolve(), args.leaderboard)
        else:
            run(args.recipe, args.out.resolve(), architectures, args.leaderboard)
