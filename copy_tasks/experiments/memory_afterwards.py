"""The memory of trained models whose published runs were scored before memory was measured
(issue 53): each model is built again from its recipe, freshly initialised, and its cache
measured (`architectures.memory`) as a run measures it; what a model keeps of a prompt follows
from its shape and the width its numbers are kept in, not from its weights. Written into copies
of the runs' results (in a folder of new files: the results read are never changed), in each
task's metadata where nothing was recorded, with where it came from.

A model is found by its label (`train_evaluation.model_label`), and its rebuilt parameter count
must equal the one its run recorded (the recipe named is the one it was trained by); anything
else is left as it is and said.

    python -m copy_tasks.experiments.memory_afterwards leaderboard/results/trained --recipe full --out filled/

    >>> parse_label("trained-lookup_prefix-transformer-hard-alibi-s1")
    Job(architecture='transformer-hard-alibi', task='lookup_prefix', seed=1, width=None)
    >>> parse_label("trained-mqar-mamba2-state8-w64-s0"), parse_label("ngram_copier(n=5)")
    (Job(architecture='mamba2-state8', task='mqar', seed=0, width=64), None)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES, Recipe
from copy_tasks.experiments.training_jobs import Job
from copy_tasks.experiments.training_tasks import TRAINING_TASKS
from copy_tasks.probes.options import Recorded
from copy_tasks.report.results import add_to_task_metadata, find_result_files, read_results

LABEL = re.compile(r"trained-(?P<task>{tasks})-(?P<architecture>{architectures})(?:-w(?P<width>\d+))?-s(?P<seed>\d+)"
                   .format(
    tasks="|".join(map(re.escape, TRAINING_TASKS)),
    architectures="|".join(map(re.escape, sorted(ARCHITECTURES, key=len, reverse=True)))))
SOURCE = Recorded.MEMORY_MEASURED  # where memory written afterwards came from


def parse_label(label: str) -> Job | None:
    """The job a final model's label names, or None (a checkpoint, a reference model)."""
    found = LABEL.fullmatch(label)
    if found is None:
        return None
    width = found["width"]
    return Job(found["architecture"], found["task"], int(found["seed"]), None if width is None else int(width))


def rebuilt(job: Job, recipe: Recipe):
    """The job's model as its recipe builds it, untrained."""
    from copy_tasks.experiments.architectures import build_model
    from copy_tasks.experiments.training_data import tokenizer_for

    return build_model(job.architecture, recipe, tokenizer_for(job.task), job.seed, job.width)


def has_memory(metadata: dict | None) -> bool:
    """Whether a task's recorded metadata holds the model's memory (either part)."""
    metadata = metadata or {}
    return metadata.get(Recorded.STATE_BITS) is not None or metadata.get(Recorded.STATE_BITS_PER_TOKEN) is not None


def fill_results(path: Path, memory, architecture_label: str | None, source: str, out: Path) -> list[str]:
    """A copy of a results file in the folder `out` with `memory` in every task whose run recorded
    none (`report.results.add_to_task_metadata`); the tasks given it."""
    def additions(task: str, metadata: dict) -> dict | None:
        if has_memory(metadata):
            return None
        return {Recorded.STATE_BITS: memory.state_bits, Recorded.STATE_BITS_PER_TOKEN: memory.bits_per_token,
                SOURCE: source, Recorded.ARCHITECTURE: architecture_label}

    return add_to_task_metadata(path, additions, out)


def fill_folder(folder: Path, recipe_name: str, out: Path) -> list[str]:
    """Every final model's results under `folder` (in a folder named by its label) that recorded no
    memory, copied under `out` (the same relative path) with their rebuilt model's; one line said
    for each results file."""
    from copy_tasks.experiments.architectures import memory, parameters
    from copy_tasks.harness.state_size import architecture_label

    recipe, said, measured = RECIPES[recipe_name], [], {}
    for path in find_result_files([folder])[0]:
        label = path.parent.name
        job = parse_label(label)
        if job is None or job.task not in recipe.phases:
            said.append(f"{path}: {label} is no final model of recipe {recipe_name}; left as it is")
            continue
        data = read_results(path)
        if not [task for task, config in data.get("configs", {}).items() if not has_memory(config.get("metadata"))]:
            said.append(f"{path}: memory recorded already")
            continue
        recorded = data.get("config", {}).get("model_num_parameters")
        key = (job.architecture, job.task, job.width)
        if key not in measured:
            model = rebuilt(job, recipe)
            measured[key] = (memory(model), parameters(model))
        kept, count = measured[key]
        if recorded != count:
            said.append(f"{path}: its run recorded {recorded} parameters, recipe {recipe_name} builds {count}; "
                        "left as it is")
            continue
        tasks = data.get("configs", {})
        some = next(iter(tasks.values()), {}).get("metadata") or {}
        label_text = architecture_label(kept, some.get(Recorded.MODEL_TYPE), some.get(Recorded.POSITIONS))
        source = (f"afterwards: recipe {recipe_name}'s {job.architecture} built again (untrained, {count:,} "
                  "parameters) and its cache measured")
        copy = out / path.parent.relative_to(folder)
        written = fill_results(path, kept, label_text, source, copy)
        said.append(f"{copy / path.name}: {len(written)} tasks given {kept.state_bits:,} bits fixed and "
                    f"{kept.bits_per_token:,} a token")
    return said


def print_filled(parser: argparse.ArgumentParser, fill: Callable[[], list[str]]) -> int:
    """Run a tool's `fill` and print what it said; a copy it may not write (a name in the way in
    --out) ends the command in one line (exit 1)."""
    try:
        said = fill()
    except FileExistsError as error:
        parser.exit(1, f"{parser.prog}: {error}\n")
    print("\n".join(said))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m copy_tasks.experiments.memory_afterwards",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder of trained models' results (leaderboard/results/trained)")
    parser.add_argument("--recipe", choices=sorted(RECIPES), required=True, help="the recipe that trained them")
    parser.add_argument("--out", type=Path, required=True, help="the folder the copies given memory are written to")
    arguments = parser.parse_args(argv)
    if not arguments.folder.is_dir():
        parser.error(f"{arguments.folder} is not a folder")
    return print_filled(parser, lambda: fill_folder(arguments.folder, arguments.recipe, arguments.out))


if __name__ == "__main__":
    sys.exit(main())
