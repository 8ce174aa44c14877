"""Every metric key in every result, and no group mean over a different set of docs.

A doc that does not fit the backend's context reports only `overflow` (`copy_tasks.harness.task`),
so lm-eval's mean of each metric is over the docs that fit. Two things follow, which this
module settles on what `evaluator.evaluate` returns (the registration hook calls it):
- a task none of whose docs fit would have no `exact_match` at all, and its overflowed samples
  lack the key: lm-eval's loggers (W&B reads every metric of every sample) and scripts fail on
  that. Every metric the task declares is filled in as NaN (stderr NaN) where missing, in the
  task's results and in each logged sample;
- a family's group mean would average only the docs that fit: for a short-context model, the
  shorter lengths, an easier set than a long-context model's. Two models' group means are
  comparable only over the same docs, so a group any of whose tasks had a doc cut reports NaN
  for every metric but `overflow` (which says how much was cut), with one warning naming the
  tasks. Each task's own scores, over the docs that fit, stay as they are.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from copy_tasks.harness.lm_eval_internals import (
    group_subtasks,
    logged_samples,
    metric_of_key,
    results_key,
    results_table,
    with_plain_task_names,
)

log = logging.getLogger("copy_tasks")
NAN = float("nan")
KEPT_GROUP_METRICS = ("overflow",)


def leaf_tasks(group_subtasks: Mapping[str, list[str]], name: str) -> set[str]:
    """The tasks under `name`, through nested groups.

    >>> sorted(leaf_tasks({"all": ["a", "g"], "g": ["b", "c"]}, "all"))
    ['a', 'b', 'c']
    """
    children = group_subtasks.get(name)
    if not children:
        return {name}
    return set().union(*(leaf_tasks(group_subtasks, child) for child in children))


def fill_missing_metrics(results: dict, task: str, metrics: Iterable[str]) -> None:
    """Every metric of `task` present in its results (NaN, stderr NaN) and in its samples."""
    entry = results_table(results).get(task)
    if entry is None:
        return
    for metric in metrics:
        entry.setdefault(results_key(metric), NAN)
        entry.setdefault(results_key(metric, stderr=True), NAN)
        for sample in logged_samples(results, task):
            sample.setdefault(metric, NAN)


def void_group_means(results: dict, cut_tasks: set[str]) -> None:
    """NaN for every metric but `overflow` of each group that holds a task with a cut doc."""
    groups = group_subtasks(results)
    for group in groups:
        cut = sorted(cut_tasks & leaf_tasks(groups, group))
        if not cut:
            continue
        voided = False
        for table in (results_table(results), results_table(results, "groups")):
            entry = table.get(group, {})
            for key in entry:
                metric = metric_of_key(key)
                if metric is not None and metric not in KEPT_GROUP_METRICS and isinstance(entry[key], (int, float)):
                    entry[key], voided = NAN, True
        if voided:
            log.warning("copy-tasks: group %s reports NaN (but its overflow): docs of %s do not fit the "
                        "context, so its mean would cover other docs than for a model that reads them all. "
                        "Compare models on each task's own score.", group, ", ".join(cut))


def complete_results(results: dict | None, tasks: Iterable) -> dict | None:
    """Settle lm-eval's `results` (None on ranks other than 0) for our `tasks` (`CopyTask`s)."""
    if results is None:
        return None
    tasks = list(tasks)
    with_plain_task_names(results, {task.config.task for task in tasks})
    cut = set()
    for task in tasks:
        fill_missing_metrics(results, task.config.task, task.metric_names())
        if any(value == 1.0 for value in task.overflow.values()):
            cut.add(task.config.task)
    void_group_means(results, cut)
    return results
