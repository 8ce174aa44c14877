"""The jobs of a `copy-tasks train` run: every (architecture, task, seed, width) of its recipe,
the costliest first (`jobs`), trained `workers` at once on one torch thread each (`train_all`),
the jobs of a task that starts from another's models after that task's (`waves`), a job
finished by an earlier run in the same folder kept (`finished`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from copy_tasks.experiments.recipes import RECIPES, Recipe
from copy_tasks.experiments.training import model_folder, train
from copy_tasks.experiments.training_tasks import PAPER_TASKS, TRAINING_TASKS


@dataclass(frozen=True)
class Job:
    """One model to train: an architecture on a task from a seed (at a grid recipe's width)."""

    architecture: str
    task: str
    seed: int
    width: int | None = None

    def folder(self, out: Path) -> Path:
        return model_folder(out, self.task, self.architecture, self.seed, self.width)


SUMMARY = "summary.json"  # in a model's folder once its training has finished


# Relative CPU cost of a step, measured on 2 cores (one thread): the longest jobs start first.
STEP_COST = {"transformer-nope": 0.7, "transformer-rope": 0.7, "transformer-alibi": 1.2,
             "transformer-hard-alibi": 0.65, "mamba2": 1.6, "lstm": 0.45, "transformer-conv": 0.4,
             "mamba2-state8": 1.2, "mamba2-state16": 1.3, "mamba2-state32": 1.4}


def jobs(recipe: Recipe, architectures, tasks=PAPER_TASKS) -> list[Job]:
    """Every (architecture, task, seed, width) of a run, the costliest first.

    >>> [job.architecture for job in jobs(RECIPES["quick"], ("lstm", "mamba2"), ("copy",))]
    ['mamba2', 'lstm']
    >>> [(job.architecture, job.width) for job in jobs(RECIPES["mqar"], ("lstm",), ("mqar",))][:3]
    [('lstm', 64), ('lstm', 64), ('lstm', 32)]
    """
    every = [Job(architecture, task, seed, width) for task in tasks for architecture in architectures
             for width in recipe.widths_of(architecture) for seed in recipe.seeds]
    return sorted(every, key=lambda job: -STEP_COST[job.architecture] * (job.width or recipe.hidden)
                  * recipe.phases_of(job.task, job.architecture).steps)


def waves(pending: list[Job]) -> list[list[Job]]:
    """The jobs in the order their starting models exist: first those trained from scratch, then
    those that start from another task's models (`TrainingTask.starts_from`).

    >>> [[job.task for job in wave] for wave in waves([Job("lstm", "lookup_suffix", 0), Job("lstm", "copy", 0)])]
    [['copy'], ['lookup_suffix']]
    """
    first = [job for job in pending if TRAINING_TASKS[job.task].starts_from is None]
    return [wave for wave in (first, [job for job in pending if job not in first]) if wave]


def finished(job: Job, out: Path, recipe_name: str) -> dict | None:
    """The summary of a job this recipe already trained into `out`, or None. A summary written
    before memory was measured gets its model's memory now (`memory_columns`), written back."""
    try:
        summary = json.loads((job.folder(out) / SUMMARY).read_text())
    except (OSError, ValueError):
        return None
    complete = (job.folder(out) / "final" / "config.json").is_file()
    if not (complete and isinstance(summary, dict) and summary.get("recipe") == recipe_name):
        return None
    if "state_bits_per_token" not in summary:
        summary |= measured_again(job.folder(out) / "final")
        (job.folder(out) / SUMMARY).write_text(json.dumps(summary))
    return summary


def measured_again(folder: Path) -> dict:
    """The memory columns of the model saved in `folder` (`training.memory_columns`)."""
    from transformers import AutoModelForCausalLM

    from copy_tasks.experiments.architectures import memory
    from copy_tasks.experiments.training import memory_columns
    from copy_tasks.models.trained_architectures import register

    register()
    return memory_columns(memory(AutoModelForCausalLM.from_pretrained(folder)))


def run_job(arguments) -> dict:
    """Train one job in this process on one torch thread; write its summary (a pool's worker)."""
    import torch

    job, recipe_name, out = arguments
    torch.set_num_threads(1)
    summary = (train(job.architecture, job.task, job.seed, RECIPES[recipe_name], out, width=job.width)
               | {"recipe": recipe_name})
    (job.folder(out) / SUMMARY).write_text(json.dumps(summary))
    return summary


def train_all(recipe_name: str, out: Path, architectures, report=print, tasks=PAPER_TASKS,
              workers: int | None = None) -> list[dict]:
    """Train every job of the run not already finished in `out`, `workers` at once (the recipe's
    unless told), in `waves`; the summaries."""
    import multiprocessing

    recipe = RECIPES[recipe_name]
    workers = workers or recipe.workers
    summaries, pending = [], []
    for job in jobs(recipe, architectures, tasks):
        done = finished(job, out, recipe_name)
        if done is None:
            pending.append(job)
        else:
            summaries.append(done)
    if summaries:
        report(f"{len(summaries)} of {len(summaries) + len(pending)} models already trained in {out}: kept")
    def trained(wave: list[Job]):
        arguments = [(job, recipe_name, out) for job in wave]
        if workers > 1 and len(wave) > 1:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                yield from pool.imap_unordered(run_job, arguments)
        else:
            yield from map(run_job, arguments)

    for wave in waves(pending):
        for summary in trained(wave):  # as each finishes
            report(f"{summary_name(summary)}: final loss {summary['final_loss']:.4f} after {summary['seconds']:.0f} s")
            summaries.append(summary)
    return summaries


def summary_name(summary: dict) -> str:
    """`task/architecture[/width W]/seed N` of a trained model's summary."""
    width = f"/width {summary['width']}" if summary.get("width") else ""
    return f"{summary['task']}/{summary['architecture']}{width}/seed {summary['seed']}"
