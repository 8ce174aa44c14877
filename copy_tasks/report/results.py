"""Read lm-eval result files into leaderboard rows.

A results file (`results_<date>.json`, written by `lm_eval --output_path`) holds, per task, the
metric values and stderrs (`"exact_match,none": 0.9`, `"exact_match_stderr,none": 0.1`), the
task configs (whose `metadata` carries what our tasks recorded: seed, doc fingerprint, overflow
count, model type), and the run's model and settings. Each copy-tasks task in it gives one row
per metric. Files that cannot be used give a `Problem` naming the file and what is wrong; they
never stop the others from being read.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from copy_tasks.models import REFERENCE_MODELS
from copy_tasks.probes.families import FAMILIES, parse_task_name

SSM_TYPES = frozenset({"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7", "xlstm"})
HYBRID_TYPES = frozenset({
    "jamba", "zamba", "zamba2", "bamba", "falcon_h1", "granitemoehybrid", "nemotron_h",
    "recurrent_gemma", "lfm2", "hymba", "qwen3_next", "minimax",
})
SKIPPED_RESULT_KEYS = ("alias", "name", "sample_len", "samples", "sample_count")
PREDICT_ONLY_METRIC = "bypass"  # what lm-eval reports for --predict_only runs


@dataclass(frozen=True)
class Problem:
    """A file, or part of one, that could not be used as given, and why."""

    path: str
    message: str
    skipped: bool = False  # the whole file was left out

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def architecture(backend: str, model_type: str | None) -> str:
    """The architecture family of a model, from its lm-eval backend and its config's model_type.

    >>> architecture("hf", "mamba"), architecture("hf", "jamba"), architecture("hf", "llama")
    ('ssm', 'hybrid', 'transformer')
    >>> architecture("ngram_copier", None), architecture("vllm", None)
    ('reference model', 'unknown')
    """
    if backend in REFERENCE_MODELS:
        return "reference model"
    if backend == "mamba_ssm" or model_type in SSM_TYPES:
        return "ssm"
    if model_type in HYBRID_TYPES:
        return "hybrid"
    return "transformer" if model_type else "unknown"


def find_result_files(inputs: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Every `results_*.json` under the given folders, and the given files, in sorted order."""
    found, problems = set(), []
    for item in inputs:
        if item.is_dir():
            found.update(item.rglob("results_*.json"))
        elif item.is_file():
            found.add(item)
        else:
            problems.append(Problem(str(item), "no such file or folder", skipped=True))
    return sorted(found), problems


def _number(value: Any) -> float | None:
    """A metric value as a float, or None for lm-eval's "N/A", NaN and missing values."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if math.isnan(value) else float(value)


def _is_missing(value: Any) -> bool:
    return value is None or value == "N/A" or (isinstance(value, float) and math.isnan(value))


def _model_id(data: dict) -> str:
    config = data.get("config") or {}
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
    date = data.get("date")
    if isinstance(date, (int, float)):
        return datetime.fromtimestamp(date, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return path.stem.removeprefix("results_")


def _samples(path: Path, task: str) -> tuple[list[dict] | None, Problem | None]:
    """The logged samples of a task beside its results file (None when there are none or they
    cannot be read, with the problem)."""
    stamp = path.stem.removeprefix("results_")
    samples = path.with_name(f"samples_{task}_{stamp}.jsonl")
    if not samples.is_file():
        return None, None
    try:
        return [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()], None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, Problem(str(samples), f"is not valid JSON lines ({error}); n taken from the results file")


def _gen_kwargs(value: Any) -> dict:
    """lm-eval's recorded `--gen_kwargs`: a dict, or the command line's `k=v,k=v` string."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        pairs = (item.partition("=") for item in value.split(","))
        return {key.strip(): raw.strip() for key, _, raw in pairs if key.strip()}
    return {}


def _flags(data: dict, n_shot: Any, metadata: dict) -> str:
    """What made a run differ from the tasks' defaults. A user's `max_gen_toks` is shown as the
    budgets our task really sent (it only raises budgets), when the task recorded them."""
    config = data.get("config") or {}
    flags = []
    if config.get("limit") is not None:
        flags.append(f"limit={config['limit']}")
    gen_kwargs = dict(_gen_kwargs(config.get("gen_kwargs")))
    sent = metadata.get("copy_tasks_generation_budgets")
    if "max_gen_toks" in gen_kwargs and isinstance(sent, list) and sent:
        del gen_kwargs["max_gen_toks"]
        flags.append("max_gen_toks_sent=" + "|".join(str(budget) for budget in sent))
    if gen_kwargs:
        flags.append("gen_kwargs=" + json.dumps(gen_kwargs, sort_keys=True))
    if data.get("chat_template") or data.get("chat_template_sha"):
        flags.append("chat_template")
    if n_shot not in (None, 0, "0"):
        flags.append(f"num_fewshot={n_shot}")
    return ";".join(flags)


def rows_from_file(path: Path) -> tuple[list[dict], list[Problem]]:
    """The leaderboard rows of one results file, and what was wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return [], [Problem(str(path), f"cannot be read ({error}); skipped", skipped=True)]
    except json.JSONDecodeError as error:
        return [], [Problem(str(path), f"is not valid JSON, perhaps truncated ({error}); skipped", skipped=True)]
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        return [], [Problem(str(path), "is not an lm-eval results file (no \"results\" object); skipped", skipped=True)]
    ours = {task: parse_task_name(task) for task in data["results"]}
    ours = {task: parsed for task, parsed in ours.items() if parsed}
    if not ours:
        tasks = ", ".join(sorted(data["results"])) or "none"
        return [], [Problem(str(path), f"has no copy-tasks task (its tasks: {tasks}); skipped", skipped=True)]
    if all(any(key.startswith(PREDICT_ONLY_METRIC + ",") for key in data["results"][task]) for task in ours):
        return [], [Problem(str(path), "holds predictions only (lm-eval --predict_only: no scores); left out")]

    rows: list[dict] = []
    problems: list[Problem] = []
    config = data.get("config") or {}
    backend = str(config.get("model") or data.get("model_source") or "")
    model = _model_id(data)
    if any(char in model for char in "\r\n"):
        problems.append(Problem(str(path), f"model name {model!r} has line breaks; written with spaces"))
        model = re.sub(r"[\r\n]+", " ", model)
    date = _run_date(data, path)
    run = f"{model}@{date}"
    for task in sorted(ours):
        family_name, variant, length = ours[task]
        task_config = (data.get("configs") or {}).get(task) or {}
        metadata = task_config.get("metadata") or {}
        n_samples = (data.get("n-samples") or {}).get(task) or {}
        n = n_samples.get("effective")
        samples, samples_problem = _samples(path, task)
        if samples_problem:
            problems.append(samples_problem)
        if samples is not None and n is not None and len(samples) != n:
            problems.append(Problem(str(path), f"{task}: {len(samples)} logged samples but n={n}; "
                                               "n taken from the samples"))
        if samples is not None:
            n = len(samples)
        common = {
            "run": run,
            "model": model,
            "model_revision": config.get("model_sha") or config.get("model_revision") or "",
            "model_source": metadata.get("copy_tasks_model_source") or "",
            "backend": backend,
            "dtype": str(config.get("model_dtype") or ""),
            "parameters": config.get("model_num_parameters") or "",
            "architecture": architecture(backend, metadata.get("copy_tasks_model_type")),
            "model_type": metadata.get("copy_tasks_model_type") or "",
            "lm_eval_version": data.get("lm_eval_version") or "",
            "copy_tasks_version": metadata.get("copy_tasks_version") or "",
            "task": task,
            "family": family_name,
            "variant": variant,
            "task_version": (data.get("versions") or {}).get(task, ""),
            "task_hash": (data.get("task_hashes") or {}).get(task, ""),
            "docs_sha256": metadata.get("copy_tasks_docs_sha256") or "",
            "seed": metadata.get("copy_tasks_seed", ""),
            "length": length,
            "unit": FAMILIES[family_name].unit,
            "n": n if n is not None else "",
            "overflow_docs": metadata.get("copy_tasks_overflow_docs", ""),
            "date": date,
            "flags": _flags(data, (data.get("n-shot") or {}).get(task), metadata),
            "source_file": path.name,
        }
        values = data["results"][task]
        for key in sorted(values):
            if key in SKIPPED_RESULT_KEYS or "_stderr," in key or key.startswith(PREDICT_ONLY_METRIC + ","):
                continue
            metric, _, metric_filter = key.partition(",")
            value, stderr = values[key], values.get(f"{metric}_stderr,{metric_filter}")
            if _number(value) is None and not _is_missing(value):
                problems.append(Problem(str(path), f"{task}: {metric} = {value!r} is not a number; left empty"))
            if stderr == "N/A":
                problems.append(Problem(str(path), f"{task}: {metric} has stderr \"N/A\"; left empty"))
            rows.append({
                **common,
                "metric": metric if metric_filter in ("none", "") else key,
                "value": _number(value),
                "stderr": _number(stderr),
            })
    return rows, problems
