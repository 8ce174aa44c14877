"""Score a finished run's stored answers again under the current rules, without the model.

When only the scoring changes (a task version bump whose docs, prompts and generation settings
are the same), the answers a model gave are still its answers. `copy-tasks rescore RUN --out
DIR` reads every `results_<date>.json` under RUN with its `samples_<task>_<date>.jsonl`, scores
each generation sample's answer (`filtered_resps`) with its family's rules (ours and the
authors', `Family.score_both_rules`), and writes the results and samples under the same names into
DIR, which must not hold them already. A task's metrics are re-aggregated as lm-eval
does (`mean`, stderr = sample standard deviation / sqrt(n)) over the docs that fit; its
version becomes the current one, and its metadata records `copy_tasks_rescored_from` (the
version it ran under, kept when a re-scored run is re-scored again), and each family group
holding a re-scored task is aggregated again as lm-eval aggregates it (`regroup`). Teacher-forced tasks,
whose scores do not depend on the text of an answer, and tasks of other suites are written as
they were.

A run is re-scored only if its answers are to the docs this version draws and every one of
them is there: a samples file holding fewer or more samples than the results file counts
(`n-samples`, which must be there), or a doc twice, or a task whose recorded
`copy_tasks_docs_sha256` differs from the docs the current version draws for its settings, or a
sample whose doc is not the doc drawn for its `doc_id` (its questions' prompts, targets and
continuations), is refused in one line naming the file and what differs (re-aggregating a cut
file would report the mean of the lines left). A doc of several questions (`mqar`) is scored
from all its answers, one per question (`Family.score_generations`), as the task scored it.

    >>> aggregate([1.0, 0.0, 1.0, 1.0])
    (0.75, 0.25)
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

from copy_tasks.harness.lm_eval_internals import parse_results_key, results_key
from copy_tasks.probes.families import FAMILIES, parse_task_name
from copy_tasks.probes.family import GENERATION
from copy_tasks.probes.options import PREFIX, RECORDED_KEYS, TASK_KEYS, Recorded, UserError, one_line_errors
from copy_tasks.probes.public_scorer import checked_doc
from copy_tasks.probes.task_docs import docs_fingerprint, questions_text, task_rows
from copy_tasks.report.results import (
    UnreadableResults,
    find_result_files,
    read_results,
    read_samples,
    samples_beside,
)

NAN = float("nan")


def aggregate(values: list[float]) -> tuple[float, float]:
    """(mean, stderr) as lm-eval's `mean` and `mean_stderr`; NaN for no value, stderr NaN for one."""
    if not values:
        return NAN, NAN
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, NAN
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


class RescoreRefused(UserError):
    """A run that cannot be re-scored as it is; the message names the file and what differs."""


def check_complete(task: str, samples: list[dict], results: dict, path: Path) -> None:
    """Every sample the results file counts is in the samples file, once."""
    ids = [sample.get("doc_id") for sample in samples if isinstance(sample, dict)]
    if len(ids) != len(samples):
        raise RescoreRefused(f"{path}: {task}: a line is not a sample object")
    if len(set(ids)) != len(ids):
        twice = next(doc_id for doc_id in ids if ids.count(doc_id) > 1)
        raise RescoreRefused(f"{path}: {task}: doc_id {twice} occurs more than once; a samples file with "
                             "duplicated lines cannot be re-scored")
    counted = (results.get("n-samples") or {}).get(task)
    expected = counted.get("effective") if isinstance(counted, dict) else None
    if not isinstance(expected, int):
        raise RescoreRefused(f"{path}: {task}: the results file records no count of its samples (n-samples "
                             f"{task} effective); without it a cut samples file cannot be told from a whole one")
    if len(samples) != expected:
        raise RescoreRefused(f"{path}: {task}: {len(samples)} samples, but the results file counts {expected} "
                             "(n-samples); a cut or padded samples file cannot be re-scored")


def check_same_docs(task: str, results: dict, path: Path) -> list[dict]:
    """The docs the run scored (their recorded fingerprint) are those this version draws; returns them."""
    family, _, length = parse_task_name(task)
    metadata = results["configs"][task].get("metadata") or {}
    recorded = metadata.get(Recorded.DOCS_SHA256)
    if not recorded:
        raise RescoreRefused(f"{path}: {task} records no {Recorded.DOCS_SHA256}; its docs cannot be checked")
    options = {key: value for key, value in metadata.items()
               if key.startswith(PREFIX) and key not in RECORDED_KEYS and key not in TASK_KEYS}
    try:
        drawn = task_rows(family, length, GENERATION, options)
    except UserError as error:
        raise RescoreRefused(f"{path}: {task}: cannot draw its docs to compare them ({error})") from None
    current = docs_fingerprint(drawn)
    if current != recorded:
        raise RescoreRefused(f"{path}: {task} scored other docs than this version draws ({Recorded.DOCS_SHA256} "
                             f"{recorded[:12]} recorded, {current[:12]} now): its answers cannot be re-scored "
                             "as this version's")
    return drawn


def run_docs(task: str, results: dict, count: int) -> tuple[list[int], bool]:
    """The indices of the drawn docs the run scored, of the `count` drawn, and whether `--samples`
    chose them: those it chose, or under `--limit N` (as the task recorded it) the first N.

    >>> run_docs("t", {"configs": {"t": {"metadata": {"copy_tasks_samples": [7, 2]}}}}, 10)
    ([2, 7], True)
    >>> run_docs("t", {"configs": {"t": {"metadata": {"copy_tasks_limit": 3}}}}, 10)
    ([0, 1, 2], False)
    """
    metadata = results["configs"][task].get("metadata") or {}
    chosen, limit = metadata.get(Recorded.SAMPLES), metadata.get(Recorded.LIMIT)
    if isinstance(chosen, list):
        return sorted({index for index in chosen if isinstance(index, int) and 0 <= index < count}), True
    return list(range(min(count, limit) if isinstance(limit, int) else count)), False


def check_sample_docs(task: str, samples: list[dict], drawn: list[dict], results: dict, path: Path) -> None:
    """Each sample's doc is a doc the run scored, once, and the one this version draws for it,
    question by question: the doc of its `doc_id`, or under `--samples` the doc of its own `index`
    (lm-eval 0.4.13 logs the docs of an unsorted `--samples` list under the list's doc_ids in turn)."""
    scored, chosen = run_docs(task, results, len(drawn))
    holder: dict[int, int] = {}  # doc index -> the doc_id of the sample holding it
    for sample in samples:
        doc_id = sample.get("doc_id")
        if isinstance(doc_id, bool) or doc_id not in scored:
            raise RescoreRefused(f"{path}: {task}: doc_id {doc_id!r} is not a doc of the run (it scored docs "
                                 f"{_listed(scored)}); a samples file of other docs cannot be re-scored")
        try:
            doc = checked_doc(sample.get("doc"), "prompt", "target")
            stored = questions_text(doc)
        except (TypeError, ValueError, KeyError) as error:
            raise RescoreRefused(f"{path}: {task}: doc_id {doc_id}: {error.args[0]}") from None
        index = doc.get("index") if chosen else doc_id
        if isinstance(index, bool) or index not in scored or index in holder:
            why = f"which doc_id {holder[index]} holds too" if index in holder else "which the run did not score"
            raise RescoreRefused(f"{path}: {task}: the sample of doc_id {doc_id} holds doc {index!r}, {why}")
        holder[index] = doc_id
        if stored != (expected := questions_text(drawn[index])):
            raise RescoreRefused(f"{path}: {task}: the sample of doc_id {doc_id} holds another doc than doc {index} "
                                 f"this version draws ({difference(stored, expected)}); its answers cannot be "
                                 "re-scored as that doc's")


def _listed(indices: list[int]) -> str:
    """Doc indices in a few words.

    >>> _listed([0, 1, 2, 3]), _listed([2, 7]), _listed([])
    ('0 to 3', '2, 7', 'none')
    """
    if not indices:
        return "none"
    if len(indices) > 2 and indices == list(range(indices[0], indices[-1] + 1)):
        return f"{indices[0]} to {indices[-1]}"
    return ", ".join(map(str, indices))


def difference(stored: list[tuple[str, ...]], expected: list[tuple[str, ...]]) -> str:
    """What first differs between two docs' questions (`questions_text`), in words.

    >>> difference([("a:", "1", " 1")], [("b:", "1", " 1")])
    'its prompt differs'
    >>> difference([("a:", "1", " 1"), ("a: 1\\nb:", "3", " 3")], [("a:", "1", " 1"), ("a: 1\\nb:", "2", " 2")])
    "question 2's target differs"
    """
    if len(stored) != len(expected):
        return f"it asks {len(stored)} question(s), the drawn doc {len(expected)}"
    number, field = next((number, field) for number, (mine, theirs) in enumerate(zip(stored, expected), 1)
                         for field, a, b in zip(("prompt", "target", "continuation"), mine, theirs) if a != b)
    whose = "its" if len(expected) == 1 else f"question {number}'s"
    return f"{whose} {field} differs"


def answers_of(sample: dict, number: int, task: str, path: Path | str) -> list[str]:
    """The stored answer texts of a sample (`filtered_resps`: one per request of its doc; lm-eval
    0.5 logs each as a list of its one answer), or RescoreRefused naming it."""
    responses = sample.get("filtered_resps") if isinstance(sample, dict) else None
    if isinstance(responses, list):
        responses = [response[0] if isinstance(response, list) and len(response) == 1 else response
                     for response in responses]
    if not (isinstance(responses, list) and responses and all(isinstance(text, str) for text in responses)):
        raise RescoreRefused(f"{path}: {task}: sample {number} has no answer text (filtered_resps must be a list "
                             "of strings); only samples lm-eval logged with --log_samples can be re-scored")
    return responses


def rescore_samples(task: str, samples: list[dict], path: Path | str = "samples") -> list[dict]:
    """The samples of one generation task, each with its metrics scored again."""
    family = FAMILIES[parse_task_name(task)[0]]
    rescored = []
    for number, sample in enumerate(samples):
        metrics = {name: NAN for name in family.generation_metrics}
        answers = answers_of(sample, number, task, path)
        try:
            doc = checked_doc(sample.get("doc"), "prompt", "target")
            if sample.get("overflow") != 1.0:
                metrics |= family.score_generations(answers, doc)
        except (TypeError, ValueError) as error:
            raise RescoreRefused(f"{path}: {task}: sample {number}: {error}") from None
        rescored.append({**sample, **metrics, "metrics": [*family.generation_metrics, "overflow"]})
    return rescored


def rescore_task(results: dict, task: str, samples: list[dict]) -> None:
    """Write the re-aggregated metrics, the current version and the old one into `results`."""
    family = FAMILIES[parse_task_name(task)[0]]
    entry = results["results"][task]
    for name in family.generation_metrics:
        values = [sample[name] for sample in samples if not math.isnan(sample[name])]
        entry[results_key(name)], entry[results_key(name, stderr=True)] = aggregate(values)
    config = results["configs"][task]
    config["metadata"].setdefault(Recorded.RESCORED_FROM, results["versions"][task])
    config["metadata"]["version"] = float(family.task_version)
    config["metric_list"] = [{"metric": name, "aggregation": "mean", "higher_is_better": True}
                             for name in family.generation_metrics] + [
        {"metric": "overflow", "aggregation": "mean", "higher_is_better": False}]
    results["versions"][task] = float(family.task_version)
    results["higher_is_better"][task] = {name: True for name in family.generation_metrics} | {"overflow": False}


def leaf_tasks(group_subtasks: dict, group: str) -> list[str]:
    """The tasks under `group`, through the groups it holds (lm-eval's `group_subtasks`).

    >>> leaf_tasks({"all": ["a", "g"], "g": ["b", "c"]}, "all")
    ['a', 'b', 'c']
    """
    leaves = []
    for member in group_subtasks.get(group) or []:
        leaves += leaf_tasks(group_subtasks, member) if member in group_subtasks else [member]
    return leaves


FAMILY_GROUPS = {name for family in FAMILIES.values() for name in (family.name, family.name + "_tf")}


def regroup(results: dict, rescored: list[str]) -> list[str]:
    """Aggregate again each group of ours (a family's, whose YAML aggregates by an unweighted
    mean) that holds a re-scored task, as lm-eval aggregates it: each metric it reports, the
    mean over its tasks, the stderr sqrt(sum of the tasks' stderr^2) / tasks (or "N/A" where a
    task has none). Return the groups of other suites that hold a re-scored task, whose values
    are left as they were (their aggregation is not known here).

    >>> results = {"group_subtasks": {"mqar": ["mqar_8", "mqar_16"]}, "results": {
    ...     "mqar_8": {"exact_match,none": 1.0, "exact_match_stderr,none": 0.0},
    ...     "mqar_16": {"exact_match,none": 0.5, "exact_match_stderr,none": 0.2},
    ...     "mqar": {"alias": "mqar", "exact_match,none": 1.0, "exact_match_stderr,none": 0.0}}}
    >>> regroup(results, ["mqar_16"]), results["results"]["mqar"]["exact_match,none"]
    ([], 0.75)
    """
    foreign = []
    for group in results.get("group_subtasks") or {}:
        leaves = leaf_tasks(results["group_subtasks"], group)
        if not set(leaves) & set(rescored):
            continue
        if group not in FAMILY_GROUPS:
            foreign.append(group)
            continue
        for entry in (table[group] for table in (results.get("results"), results.get("groups")) if table
                      and group in table):
            for key, (metric, filter_name) in [(key, parsed[:2]) for key in entry
                                               if (parsed := parse_results_key(key)) and not parsed[2]]:
                stderr_key = results_key(metric, filter_name, stderr=True)
                tasks = [results["results"][task] for task in leaves if key in results["results"].get(task, {})]
                if not tasks:
                    continue
                entry[key] = sum(task[key] for task in tasks) / len(tasks)
                stderrs = [task.get(stderr_key) for task in tasks]
                if stderr_key in entry:
                    entry[stderr_key] = ("N/A" if any(not isinstance(value, (int, float)) for value in stderrs)
                                         else math.sqrt(sum(value ** 2 for value in stderrs)) / len(stderrs))
    return foreign


def rescore_run(results_path: Path, out: Path) -> list[str]:
    """Re-score one results file and its samples into `out`; return the tasks re-scored."""
    results = read_results(results_path)
    written: dict[Path, str | Path] = {}  # a new file's text, or the file it copies
    rescored = []
    beside = samples_beside(results_path)
    unlogged = sorted(task for task in results.get("results") or {} if task not in beside
                      and (parsed := parse_task_name(task)) is not None and parsed[1] == GENERATION)
    if unlogged:
        raise RescoreRefused(f"{results_path}: no samples file for {', '.join(unlogged[:3])}"
                             f"{' and more' if len(unlogged) > 3 else ''}: rescore reads the answers a model gave, "
                             "which lm-eval writes only with --log_samples; run again with --log_samples")
    for task, sample_path in beside.items():
        written[out / sample_path.name] = sample_path  # as it was, unless re-scored
        parsed = parse_task_name(task)
        if parsed is not None and parsed[1] == GENERATION and task in results["results"]:
            try:
                stored = read_samples(sample_path)
            except UnreadableResults as error:
                raise RescoreRefused(f"{sample_path}: {error}") from None
            check_complete(task, stored, results, sample_path)
            check_sample_docs(task, stored, check_same_docs(task, results, results_path), results, sample_path)
            samples = rescore_samples(task, stored, sample_path)
            rescore_task(results, task, samples)
            written[out / sample_path.name] = "".join(json.dumps(sample, ensure_ascii=False) + "\n"
                                                      for sample in samples)
            rescored.append(task)
    for group in regroup(results, rescored):
        print(f"copy-tasks rescore: {results_path.name}: group {group} (of another suite) holds re-scored tasks; its "
              "values are as they were, not aggregated again", file=sys.stderr)
    written[out / results_path.name] = (json.dumps(results, indent=2, ensure_ascii=False) + "\n" if rescored
                                        else results_path)
    existing = [str(path) for path in written if path.exists()]
    if existing:
        raise FileExistsError(f"{', '.join(existing)} exist already; rescore writes only new files")
    out.mkdir(parents=True, exist_ok=True)
    for path, content in written.items():
        if isinstance(content, Path):
            shutil.copyfile(content, path)
        else:
            path.write_text(content, encoding="utf-8")
    return rescored


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="copy-tasks rescore", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a folder holding an lm-eval run's results and samples")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write the re-scored files into")
    args = parser.parse_args(argv)
    problem = None
    if not args.run.exists():
        problem = f"{args.run} does not exist; give the folder of an lm-eval run (its --output_path)"
    elif not args.run.is_dir():
        problem = f"{args.run} is a file; give the folder of the lm-eval run that holds it (its --output_path)"
    elif args.out.exists() and not args.out.is_dir():
        problem = f"--out {args.out} is a file; give a folder (new, or one without these results)"
    found, _ = find_result_files([args.run]) if problem is None else ([], [])
    if problem is None and not found:
        problem = f"{args.run} holds no lm-eval results file"
    if problem is not None:
        print(f"copy-tasks rescore: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    for path in found:
        with one_line_errors("copy-tasks rescore", {FileExistsError: 2, UnreadableResults: 2, RescoreRefused: 2}):
            try:
                tasks = rescore_run(path, args.out / path.parent.relative_to(args.run))
            except UnreadableResults as error:
                raise UnreadableResults(f"{path}: {error}") from None
        print(f"{path}: {len(tasks)} generation tasks re-scored")
