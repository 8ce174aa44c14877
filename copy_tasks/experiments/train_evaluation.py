"""What `copy-tasks train` scores, and the lm-eval runs that score it.

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
from copy_tasks.experiments.training_data import PAPER_TASKS, TASKS
from copy_tasks.experiments.training_jobs import Job, jobs
from copy_tasks.harness.task_yamls import write_length_tasks
from copy_tasks.probes.copying import COPY_FORMAT
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.dup_ngram_copy import LENGTHS as DUPLICATED_NGRAMS
from copy_tasks.probes.families.lookup import LOOKUP_FORMAT
from copy_tasks.probes.families.mqar import MQAR_FORMAT
from copy_tasks.probes.family import QUERY_ACCURACY
from copy_tasks.probes.options import DOCS
from copy_tasks.report.results import metric_scores

QUERY_ACCURACY_KEY = "{task}:" + QUERY_ACCURACY  # a run's query accuracy, beside its tasks' exact match


def copy_lengths(recipe: Recipe) -> tuple[int, ...]:
    """From half the longest training length to 10 times it (experiment 1).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> copy_lengths(RECIPES["full"])
    (10, 20, 30, 40, 50, 75, 100, 150, 200)
    """
    longest = recipe.copy_lengths[1]
    steps = (0.5, 1.0, 1.5, 2.0, 2.5, 3.75, 5.0, 7.5, 10.0)
    return tuple(sorted({max(2, round(longest * step)) for step in steps}))


def lookup_lengths(recipe: Recipe) -> tuple[int, ...]:
    """From a third of the longest training length to 3.3 times it (experiment 3).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> lookup_lengths(RECIPES["full"])
    (10, 20, 30, 50, 75, 100)
    """
    longest = recipe.lookup_lengths[1]
    return tuple(sorted({max(8, round(longest * step)) for step in (0.33, 0.67, 1.0, 1.67, 2.5, 3.33)}))


def mqar_lengths(recipe: Recipe) -> tuple[int, ...]:
    """The shipped pair counts up to 4 times the most the mqar models were trained on.

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> mqar_lengths(RECIPES["full"]), mqar_lengths(RECIPES["quick"])
    ((8, 16, 32, 64, 128), (8, 16, 32))
    """
    return tuple(pairs for pairs in FAMILIES["mqar"].lengths if pairs <= 4 * recipe.mqar_pairs[1])


def run_scores(folder: Path) -> dict[str, float | None]:
    """{task: exact match} of a run's newest results, and {`QUERY_ACCURACY_KEY`: value} where a
    task reports a query accuracy."""
    accuracy = metric_scores(folder, QUERY_ACCURACY)
    return metric_scores(folder) | {QUERY_ACCURACY_KEY.format(task=task): value
                                    for task, value in accuracy.items() if value is not None}


def training_lengths(recipe: Recipe) -> tuple[int, ...]:
    return tuple(sorted({recipe.copy_lengths[1] // 2, recipe.copy_lengths[1]}))


def teacher_forced(family: str, lengths) -> tuple[str, ...]:
    return tuple(FAMILIES[family].task_name(length, teacher_forced=True) for length in lengths)


@dataclass(frozen=True)
class Evaluation:
    """One lm-eval run: a label (the model's name in the results), what runs it, and its tasks."""

    label: str
    backend: str
    model_args: str
    tasks: tuple[str, ...]
    model: Path | None = None  # a checkpoint, loaded by its label through a folder of links


def model_label(job: Job, step: int | None = None) -> str:
    """`trained-<task>-<architecture>-s<seed>`, with `-step<N>` for a checkpoint.

    >>> model_label(Job("lstm", "copy", 1)), model_label(Job("mamba2", "copy", 0), 100)
    ('trained-copy-lstm-s1', 'trained-copy-mamba2-s0-step100')
    """
    return f"trained-{job.task}-{job.architecture}-s{job.seed}" + ("" if step is None else f"-step{step}")


def evaluations(recipe: Recipe, out: Path, architectures, tasks=PAPER_TASKS) -> list[Evaluation]:
    """Every lm-eval run of the experiments."""
    copies = teacher_forced("random_copy", copy_lengths(recipe)) + teacher_forced("dup_ngram_copy", DUPLICATED_NGRAMS)
    runs = []
    for job in jobs(recipe, architectures, tasks):
        if job.task == "mqar":
            runs.append(Evaluation(model_label(job), "hf", "", teacher_forced("mqar", mqar_lengths(recipe)),
                                   job.folder(out) / "final"))
        elif job.task == "copy":
            runs.append(Evaluation(model_label(job), "hf", "", copies, job.folder(out) / "final"))
            short = teacher_forced("random_copy", training_lengths(recipe))
            runs += [Evaluation(model_label(job, step), "hf", "", short, job.folder(out) / f"step-{step}")
                     for step in recipe.checkpoint_steps if step < recipe.phases["copy"].steps]
        else:
            runs.append(Evaluation(model_label(job), "hf", "", teacher_forced(TASKS[job.task], lookup_lengths(recipe)),
                                   job.folder(out) / "final"))
    if "copy" in tasks:
        runs.append(Evaluation("ngram_copier-5", "ngram_copier", "n=5", copies))
    return runs


def write_tasks(recipe: Recipe, folder: Path) -> None:
    """The lengths the experiments use that do not ship, for `--include_path`."""
    for family, lengths in (("random_copy", copy_lengths(recipe) + training_lengths(recipe)),
                            ("lookup_prefix", lookup_lengths(recipe)), ("lookup_suffix", lookup_lengths(recipe))):
        write_length_tasks(FAMILIES[family], sorted(set(lengths)), folder)


def score_all(recipe: Recipe, out: Path, runs: list[Evaluation], report=print) -> dict:
    """Run every evaluation (`workers` at once, one torch thread each); {label: {task: exact match}}."""
    include, links = out / "tasks", out / "by_name"
    write_tasks(recipe, include)
    link_models(links, {run.label: run.model for run in runs if run.model is not None})
    metadata = {DOCS.key: recipe.evaluation_docs, LOOKUP_FORMAT.key: "paper", COPY_FORMAT.key: "paper",
                MQAR_FORMAT.key: "zoology"}
    if recipe.workers > 1:
        os.environ["OMP_NUM_THREADS"] = "1"  # the runs' torch, one thread each

    def score(run: Evaluation):
        folder = out / "results" / run.label
        model_args = f"pretrained={run.label}" if run.model is not None else run.model_args
        launch(LmEvalRun(run.backend, run.tasks, folder, model_args=model_args, batch_size=16, include=include,
                         metadata=metadata, device="cpu" if run.backend == "hf" else None),
               cwd=links if run.model is not None else out, log=out / "logs" / f"{run.label}.log")
        report(f"scored {run.label} on {len(run.tasks)} tasks")
        return run.label, run_scores(folder)

    with ThreadPoolExecutor(max(1, recipe.workers)) as pool:
        return dict(pool.map(score, runs))


def progress(message: str) -> None:
    print(f"copy-tasks train: {message}", file=sys.stderr, flush=True)
