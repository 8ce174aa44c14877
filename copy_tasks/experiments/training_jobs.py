"""The jobs of a `copy-tasks train` run: every (architecture, task, seed) of its recipe, the
costliest first (`jobs`), trained `workers` at once on one torch thread each (`train_all`), a job
finished by an earlier run in the same folder kept (`finished`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from copy_tasks.experiments.recipes import RECIPES, Recipe
from copy_tasks.experiments.training import model_folder, train
from copy_tasks.experiments.training_tasks import PAPER_TASKS


@dataclass(frozen=True)
class Job:
    """One model to train: an architecture on a task from a seed."""

    architecture: str
    task: str
    seed: int

    def folder(self, out: Path) -> Path:
        return model_folder(out, self.task, self.architecture, self.seed)


SUMMARY = "summary.json"  # in a model's folder once its training has finished


# Relative CPU cost of a step, measured on 2 cores (one thread): the longest jobs start first.
STEP_COST = {"transformer-nope": 0.7, "transformer-rope": 0.7, "transformer-alibi": 1.2,
             "transformer-hard-alibi": 0.65, "mamba2": 1.6, "lstm": 0.45}


def jobs(recipe: Recipe, architectures, tasks=PAPER_TASKS) -> list[Job]:
    """Every (architecture, task, seed) of a run, the costliest first.

    >>> [job.architecture for job in jobs(RECIPES["quick"], ("lstm", "mamba2"), ("copy",))]
    ['mamba2', 'lstm']
    """
    every = [Job(architecture, task, seed) for task in tasks for architecture in architectures
             for seed in recipe.seeds]
    return sorted(every, key=lambda job: -STEP_COST[job.architecture] * recipe.phases[job.task].steps)


def finished(job: Job, out: Path, recipe_name: str) -> dict | None:
    """The summary of a job this recipe already trained into `out`, or None."""
    try:
        summary = json.loads((job.folder(out) / SUMMARY).read_text())
    except (OSError, ValueError):
        return None
    complete = (job.folder(out) / "final" / "config.json").is_file()
    return summary if complete and isinstance(summary, dict) and summary.get("recipe") == recipe_name else None


def run_job(arguments) -> dict:
    """Train one job in this process on one torch thread; write its summary (a pool's worker)."""
    import torch

    job, recipe_name, out = arguments
    torch.set_num_threads(1)
    summary = train(job.architecture, job.task, job.seed, RECIPES[recipe_name], out) | {"recipe": recipe_name}
    (job.folder(out) / SUMMARY).write_text(json.dumps(summary))
    return summary


def train_all(recipe_name: str, out: Path, architectures, report=print, tasks=PAPER_TASKS) -> list[dict]:
    """Train every job of the run not already finished in `out`, `workers` at once; the summaries."""
    import multiprocessing

    recipe = RECIPES[recipe_name]
    summaries, pending = [], []
    for job in jobs(recipe, architectures, tasks):
        done = finished(job, out, recipe_name)
        if done is None:
            pending.append(job)
        else:
            summaries.append(done)
    if summaries:
        report(f"{len(summaries)} of {len(summaries) + len(pending)} models already trained in {out}: kept")
    arguments = [(job, recipe_name, out) for job in pending]
    if recipe.workers > 1 and len(pending) > 1:
        with multiprocessing.get_context("spawn").Pool(recipe.workers) as pool:
            for summary in pool.imap_unordered(run_job, arguments):
                report(f"{summary['task']}/{summary['architecture']}/seed {summary['seed']}: final loss "
                       f"{summary['final_loss']:.4f} after {summary['seconds']:.0f} s")
                summaries.append(summary)
    else:
        for argument in arguments:
            summaries.append(run_job(argument))
    return summaries
