"""Leaderboard rows from lm-eval results: how a results file becomes rows.

A results file (read by `copy_tasks.report.results`) gives one `LeaderboardRow`
(`copy_tasks.report.schema`) per (task, metric) of each copy-tasks task in it
(`rows_from_file`), its flags written by `copy_tasks.report.flags`; what cannot be used gives a
`Problem` naming the file and what is wrong, and never stops the other files.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from copy_tasks.harness.lm_eval_internals import NO_FILTER, parse_results_key, results_key
from copy_tasks.harness.model_info import REFERENCE_MODELS
from copy_tasks.harness.model_types import SSM, TRANSFORMER, architecture_of
from copy_tasks.probes.families import FAMILIES, parse_task_name
from copy_tasks.probes.options import SEED, Recorded
from copy_tasks.report.display_names import default_name
from copy_tasks.report.flags import flags_of
from copy_tasks.report.numbers import finite_number
from copy_tasks.report.positions import position_metrics
from copy_tasks.report.results import Problem, UnreadableResults, read_results, read_samples, run_stamp, samples_file
from copy_tasks.report.schema import LeaderboardRow

SKIPPED_RESULT_KEYS = ("alias", "name", "sample_len", "samples", "sample_count")
PREDICT_ONLY_METRIC = "bypass"  # what lm-eval reports for --predict_only runs
# The verdicts split by where the answer sits, where the samples say (`_position_rows`).
POSITION_METRICS = ("exact_match", "authors_exact_match")


def architecture(backend: str, model_type: str | None, positions: str | None = None, measured: str | None = None
                 ) -> str:
    """The architecture family of a model: the label its run measured (`measured`,
    `harness.state_size.architecture_label`), else from its lm-eval backend and its config's
    model_type (`model_types.architecture_of`), with a transformer's position scheme where it was
    recorded.

    >>> architecture("hf", "mamba"), architecture("hf", "jamba"), architecture("hf", "llama")
    ('ssm', 'hybrid', 'transformer')
    >>> architecture("hf", "copy_tasks_hard_alibi", "Hard-ALiBi"), architecture("hf", "copy_tasks_lstm")
    ('transformer (Hard-ALiBi)', 'rnn')
    >>> architecture("ngram_copier", None), architecture("vllm", None)
    ('reference model', 'unknown')
    >>> architecture("hf", "mistral", None, measured="bounded attention")
    'bounded attention'
    """
    if backend in REFERENCE_MODELS:
        return "reference model"
    if measured:
        return measured
    if backend == "mamba_ssm":
        return SSM
    found = architecture_of(model_type)
    return f"{found} ({positions})" if found == TRANSFORMER and positions else found


def _count(value: Any) -> int | str:
    """A count (n, seed, overflowed docs, parameters, state bits) as a non-negative int, or empty."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**63:
        return ""
    return value


def _is_missing(value: Any) -> bool:
    return value is None or value == "N/A" or (isinstance(value, float) and math.isnan(value))


def _mapping(value: Any, what: str) -> dict:
    """`value` if it is a JSON object (or absent: {}), else a TypeError naming the field."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"{what} is a {type(value).__name__}, not an object")
    return value


def _model_id(data: dict) -> str:
    config = _mapping(data.get("config"), "config")
    backend = str(config.get("model") or data.get("model_source") or "")
    if backend in REFERENCE_MODELS:
        args = config.get("model_args") or {}
        if isinstance(args, dict) and args:
            return backend + "(" + ",".join(f"{key}={args[key]}" for key in sorted(args)) + ")"
        return backend
    args = config.get("model_args")
    pretrained = args.get("pretrained") if isinstance(args, dict) else None
    return str(data.get("model_name") or pretrained or backend)


def _run_date(data: dict, path: Path) -> str:
    """The run's date from lm-eval's timestamp, else (missing, NaN, out of range) from the file name."""
    date = data.get("date")
    if isinstance(date, (int, float)) and not isinstance(date, bool):
        try:
            return datetime.fromtimestamp(date, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (ValueError, OverflowError, OSError):
            pass
    return run_stamp(path)


def _samples(path: Path, task: str) -> tuple[list[dict] | None, Problem | None]:
    """The logged samples of a task beside its results file (None when there are none or they
    cannot be read, with the problem)."""
    samples = samples_file(path, task)
    if not samples.is_file():
        return None, None
    try:
        return read_samples(samples), None
    except UnreadableResults as error:
        return None, Problem(str(samples), f"{error}; n taken from the results file")


def _scalar(value: Any) -> str | float | int:
    """A text or number cell (a task version, hash, fingerprint), or empty for anything else."""
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) and _plain(value) else ""


def _plain(value: str | int | float) -> bool:
    return finite_number(value) is not None if isinstance(value, (int, float)) else len(value) < 200


def _shown(value: Any) -> str:
    """A value for a message, cut short (a corrupt file can hold a 400-digit number)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def rows_from_file(path: Path) -> tuple[list[LeaderboardRow], list[Problem]]:
    """The leaderboard rows of one results file, and what was wrong with it. Nothing in one
    file stops the others: a file that cannot be read as lm-eval results is skipped, named,
    with the reason."""
    try:
        data = read_results(path)
    except UnreadableResults as error:
        return [], [Problem(str(path), f"{error}; skipped", skipped=True)]
    try:
        return _rows(path, data)
    except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as error:
        return [], [Problem(str(path), f"is not lm-eval results as this reader knows them ({type(error).__name__}: "
                                       f"{error}); skipped", skipped=True)]


def _our_tasks(path: Path, data: Any) -> tuple[dict[str, tuple[str, str, int]], list[Problem]]:
    """{task: (family, variant, length)} of the copy-tasks tasks a results file scored, or the
    problem that leaves the whole file out."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        return {}, [Problem(str(path), "is not an lm-eval results file (no \"results\" object); skipped", skipped=True)]
    ours = {task: parse_task_name(task) for task in data["results"]}
    ours = {task: parsed for task, parsed in ours.items() if parsed and parsed[2] > 0}
    if not ours:
        tasks = ", ".join(sorted(data["results"])) or "none"
        return {}, [Problem(str(path), f"has no copy-tasks task (its tasks: {tasks}); skipped", skipped=True)]
    results = {task: _mapping(data["results"][task], f"results.{task}") for task in ours}
    if all(any(parsed[0] == PREDICT_ONLY_METRIC and not parsed[2] for parsed in map(parse_results_key, results[task])
               if parsed) for task in ours):
        return {}, [Problem(str(path), "holds predictions only (lm-eval --predict_only): no scores to add; run it "
                                       "without --predict_only; skipped", skipped=True)]
    return ours, []


def _rows(path: Path, data: Any) -> tuple[list[LeaderboardRow], list[Problem]]:
    ours, problems = _our_tasks(path, data)
    if not ours:
        return [], problems
    model = _model_id(data)
    if any(char in model for char in "\r\n"):
        problems.append(Problem(str(path), f"model name {model!r} has line breaks; written as \\r and \\n"))
        model = model.replace("\r", "\\r").replace("\n", "\\n")
    rows: list[LeaderboardRow] = []
    for task in sorted(ours):
        common, samples, task_problems = _task_cells(path, data, model, task, ours[task])
        task_rows, value_problems = _metric_rows(path, task, _mapping(data["results"][task], f"results.{task}"), common)
        rows += task_rows + _position_rows(samples or [], [row.metric for row in task_rows], common)
        rows += _prompt_token_rows(data, task, common)
        problems += task_problems + value_problems
    return rows, problems


PROMPT_TOKEN_METRICS = {Recorded.PROMPT_TOKENS_MEAN: "prompt_tokens_mean",
                        Recorded.PROMPT_TOKENS_MAX: "prompt_tokens_max"}


def _prompt_token_rows(data: dict, task: str, common: dict) -> list[LeaderboardRow]:
    """Rows `prompt_tokens_mean` and `prompt_tokens_max`: the task's prompts in the backend's own
    tokens, where the task could count them (recorded since copy-tasks counts them)."""
    metadata = _mapping(_mapping(_mapping(data.get("configs"), "configs").get(task), f"configs.{task}").get(
        "metadata"), f"configs.{task}.metadata")
    return [LeaderboardRow(**common, metric=metric, value=finite_number(metadata[key]), stderr=None)
            for key, metric in PROMPT_TOKEN_METRICS.items() if finite_number(metadata.get(key)) is not None]


def _position_rows(samples: list, metrics: list[str], common: dict) -> list[LeaderboardRow]:
    """A row per verdict metric and third of the book, from the logged samples of a task whose
    docs have a `query_depth` (`copy_tasks.report.positions`): `n` is the docs in that third."""
    rows = []
    for metric in (metric for metric in metrics if metric in POSITION_METRICS):
        for third, (value, stderr, count) in position_metrics(samples, metric).items():
            rows.append(LeaderboardRow(**{**common, "n": count}, metric=f"{metric}_{third}", value=value,
                                       stderr=stderr))
    return rows


def _task_cells(path: Path, data: dict, model: str, task: str,
                parsed: tuple[str, str, int]) -> tuple[dict, list | None, list]:
    """Every cell of a task's rows but the metric's own, its logged samples (None: none were
    read), and what was wrong with its n."""
    family_name, variant, length = parsed
    config = _mapping(data.get("config"), "config")
    metadata = _mapping(_mapping(_mapping(data.get("configs"), "configs").get(task), f"configs.{task}").get("metadata"),
                        f"configs.{task}.metadata")
    problems = []
    n = _count(_mapping(_mapping(data.get("n-samples"), "n-samples").get(task), f"n-samples.{task}").get(
        "effective")) or None
    samples, samples_problem = _samples(path, task)
    if samples_problem:
        problems.append(samples_problem)
    if samples is not None and n is not None and len(samples) != n:
        problems.append(Problem(str(path), f"{task}: {len(samples)} logged samples but n={n}; "
                                           "n taken from the samples"))
    if samples is not None:
        n = len(samples)
    backend = str(config.get("model") or data.get("model_source") or "")
    model_type = _scalar(metadata.get(Recorded.MODEL_TYPE))
    date = _run_date(data, path)
    overflow = metadata.get(Recorded.OVERFLOW_DOCS)
    return {
        "run": f"{model}@{date}", "model": model, "name": default_name(model),
        "model_revision": _scalar(config.get("model_sha") or config.get("model_revision")),
        "model_source": _scalar(metadata.get(Recorded.MODEL_SOURCE)), "backend": backend,
        "dtype": str(config.get("model_dtype") or ""), "parameters": _count(config.get("model_num_parameters")) or "",
        "architecture": architecture(backend, model_type or None, _scalar(metadata.get(Recorded.POSITIONS)) or None,
                                     _scalar(metadata.get(Recorded.ARCHITECTURE)) or None),
        "model_type": model_type, "state_bits": _count(metadata.get(Recorded.STATE_BITS)),
        "state_bits_per_token": _count(metadata.get(Recorded.STATE_BITS_PER_TOKEN)),
        "lm_eval_version": _scalar(data.get("lm_eval_version")),
        "copy_tasks_version": _scalar(metadata.get(Recorded.VERSION)),
        "task": task, "family": family_name, "variant": variant,
        "task_version": _scalar(_mapping(data.get("versions"), "versions").get(task)),
        "task_hash": _scalar(_mapping(data.get("task_hashes"), "task_hashes").get(task)),
        "docs_sha256": _scalar(metadata.get(Recorded.DOCS_SHA256)), "seed": _count(metadata.get(SEED.key)),
        "length": length, "unit": FAMILIES[family_name].unit, "n": n if n is not None else "",
        "overflow_docs": "unknown" if overflow == "unknown" else _count(overflow), "date": date,
        "flags": flags_of(data, config, _mapping(data.get("n-shot"), "n-shot").get(task), metadata, family_name),
        "source_file": path.name,
    }, samples, problems


def _metric_rows(path: Path, task: str, values: dict, common: dict) -> tuple[list[LeaderboardRow], list[Problem]]:
    """A row per metric of one task; values that are not plausible numbers are left empty, named."""
    rows, problems = [], []
    for key in sorted(values):
        parsed = parse_results_key(key)
        if key in SKIPPED_RESULT_KEYS or parsed and (parsed[2] or parsed[0] == PREDICT_ONLY_METRIC):
            continue
        metric, metric_filter, _ = parsed or (key, "", False)
        if not metric.strip():  # a row's key is (run, task, metric): a nameless metric cannot be a row
            problems.append(Problem(str(path), f"{task}: a metric with no name ({_shown(key)}); left out"))
            continue
        value, stderr = values[key], values.get(results_key(metric, metric_filter, stderr=True))
        if finite_number(value) is None and not _is_missing(value):
            problems.append(Problem(str(path), f"{task}: {metric} = {_shown(value)} is not a finite number of "
                                               "plausible size; left empty"))
        if stderr == "N/A":
            problems.append(Problem(str(path), f"{task}: {metric} has stderr \"N/A\"; left empty"))
        elif not _is_missing(stderr) and (finite_number(stderr) is None or finite_number(stderr) < 0):
            problems.append(Problem(str(path), f"{task}: {metric} has stderr {_shown(stderr)}, not a number >= 0; "
                                               "left empty"))
            stderr = None
        rows.append(LeaderboardRow(**common, metric=metric if metric_filter in (NO_FILTER, "") else key,
                                   value=finite_number(value), stderr=finite_number(stderr)))
    return rows, problems
