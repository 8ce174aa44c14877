"""What `copy-tasks train` scores, and the lm-eval runs that score it (what each task's models
are scored on is the task's declaration: `copy_tasks.experiments.training_tasks`).

Every model is scored through plain `lm_eval` (`copy-tasks run --model hf`), teacher-forced
(the authors' evaluation: exact match = every answer token the model's argmax, in one forward
pass), in the authors' formats (`copy_tasks_copy_format=paper`, `copy_tasks_lookup_format=
paper`):
- copy models: `random_copy_tf` from half the longest training length to 10 times it
  (length generalisation), `dup_ngram_copy_tf` n = 1 to 8 (the 5-gram limit), and at each
  checkpoint `random_copy_tf` at the training lengths (examples needed);
- lookup models: their own task (`lookup_prefix_tf` or `lookup_suffix_tf`) from a third of the
  longest training length to 3.3 times it;
- mqar models: `mqar_tf` in Zoology's format (`copy_tasks_mqar_format=zoology`) at the shipped
  pair counts up to 4 times the most they were trained on, by exact match (all 8 queries) and
  `query_accuracy` (the fraction answered);
- beside them `ngram_copier` as a perfect 5-gram copier (`n=5`, Theorem 2.3's mechanism).
`bounded_state` is not scored here: it reads the natural copy and lookup formats only.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from copy_tasks.experiments.lm_eval_runner import LmEvalRun, launch, link_models
from copy_tasks.experiments.recipes import Recipe
from copy_tasks.experiments.training_jobs import Job, jobs
from copy_tasks.experiments.training_tasks import PAPER_TASKS, TRAINING_TASKS, Scored, TrainingTask
from copy_tasks.harness.task_yamls import write_length_tasks
from copy_tasks.probes.copying import COPY_FORMAT
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.lookup import LOOKUP_FORMAT
from copy_tasks.probes.families.mqar import MQAR_FORMAT
from copy_tasks.probes.family import QUERY_ACCURACY
from copy_tasks.probes.options import DOCS
from copy_tasks.report.results import metric_scores

QUERY_ACCURACY_KEY = "{task}:" + QUERY_ACCURACY  # a run's query accuracy, beside its tasks' exact match


def run_scores(folder: Path) -> dict[str, float | None]:
    """{task: exact match} of a run's newest results, and {`QUERY_ACCURACY_KEY`: value} where a
    task reports a query accuracy."""
    accuracy = metric_scores(folder, QUERY_ACCURACY)
    return metric_scores(folder) | {QUERY_ACCURACY_KEY.format(task=task): value
                                    for task, value in accuracy.items() if value is not None}


def teacher_forced(family: str, lengths) -> tuple[str, ...]:
    return tuple(FAMILIES[family].task_name(length, teacher_forced=True) for length in lengths)


def scored_tasks(scored: Scored) -> tuple[str, ...]:
    """The teacher-forced tasks of (family, lengths) pairs (`TrainingTask.scored_on`)."""
    return tuple(task for family, lengths in scored for task in teacher_forced(family, lengths))


def every_scored(task: TrainingTask, recipe: Recipe) -> Scored:
    """What a task's final models and checkpoints are scored on."""
    checkpoints = task.checkpoints_scored_on(recipe) if task.checkpoints_scored_on is not None else ()
    return task.scored_on(recipe) + checkpoints


@dataclass(frozen=True)
class Evaluation:
    """One lm-eval run: a label (the model's name in the results), what runs it, and its tasks."""

    label: str
    backend: str
    model_args: str
    tasks: tuple[str, ...]
    model: Path | None = None  # a checkpoint, loaded by its label through a folder of links


def model_label(job: Job, step: int | None = None) -> str:
    """`trained-<task>-<architecture>-s<seed>`, with `-w<width>` for a grid recipe's model and
    `-step<N>` for a checkpoint.

    >>> model_label(Job("lstm", "copy", 1)), model_label(Job("mamba2", "copy", 0), 100)
    ('trained-copy-lstm-s1', 'trained-copy-mamba2-s0-step100')
    >>> model_label(Job("lstm", "mqar", 1, 64))
    'trained-mqar-lstm-w64-s1'
    """
    width = "" if job.width is None else f"-w{job.width}"
    return f"trained-{job.task}-{job.architecture}{width}-s{job.seed}" + ("" if step is None else f"-step{step}")


def evaluations(recipe: Recipe, out: Path, architectures, tasks=PAPER_TASKS) -> list[Evaluation]:
    """Every lm-eval run of the experiments: each job's final model on what its task is scored
    on, its checkpoints (those before the end of its training) on what they are, then the
    tasks' reference models."""
    runs = []
    for job in jobs(recipe, architectures, tasks):
        task = TRAINING_TASKS[job.task]
        runs.append(Evaluation(model_label(job), "hf", "", scored_tasks(task.scored_on(recipe)),
                               job.folder(out) / "final"))
        if task.checkpoints_scored_on is not None:
            scored = scored_tasks(task.checkpoints_scored_on(recipe))
            runs += [Evaluation(model_label(job, step), "hf", "", scored, job.folder(out) / f"step-{step}")
                     for step in recipe.checkpoint_steps
                     if step < recipe.phases_of(job.task, job.architecture).steps]
    for task in (TRAINING_TASKS[name] for name in tasks):
        runs += [Evaluation(reference.label, reference.backend, reference.model_args,
                            scored_tasks(task.scored_on(recipe))) for reference in task.references]
    return runs


def write_tasks(recipe: Recipe, folder: Path) -> None:
    """The lengths the experiments of every task score that do not ship, for `--include_path`."""
    lengths: dict[str, set[int]] = {}
    for task in TRAINING_TASKS.values():
        for family, scored in every_scored(task, recipe):
            lengths.setdefault(family, set()).update(scored)
    for family, wanted in lengths.items():
        write_length_tasks(FAMILIES[family], sorted(wanted), folder)


def score_all(recipe: Recipe, out: Path, runs: list[Evaluation], report=print, workers: int | None = None) -> dict:
    """Run every evaluation (`workers` at once, the recipe's unless told, one torch thread each);
    {label: {task: exact match}}."""
    workers = workers or recipe.workers
    include, links = out / "tasks", out / "by_name"
    write_tasks(recipe, include)
    link_models(links, {run.label: run.model for run in runs if run.model is not None})
    metadata = {DOCS.key: recipe.evaluation_docs, LOOKUP_FORMAT.key: "paper", COPY_FORMAT.key: "paper",
                MQAR_FORMAT.key: "zoology"}
    if workers > 1:
        os.environ["OMP_NUM_THREADS"] = "1"  # the runs' torch, one thread each

    def score(run: Evaluation):
        folder = out / "results" / run.label
        model_args = f"pretrained={run.label}" if run.model is not None else run.model_args
        launch(LmEvalRun(run.backend, run.tasks, folder, model_args=model_args, batch_size=16, include=include,
                         metadata=metadata, device="cpu" if run.backend == "hf" else None),
               cwd=links if run.model is not None else out, log=out / "logs" / f"{run.label}.log")
        report(f"scored {run.label} on {len(run.tasks)} tasks")
        return run.label, run_scores(folder)

    with ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(score, runs))


def progress(message: str) -> None:
    print(f"copy-tasks train: {message}", file=sys.stderr, flush=True)
