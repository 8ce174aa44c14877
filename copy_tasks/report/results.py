"""Read lm-eval result files into leaderboard rows.

A results file (`results_<date>.json`, written by `lm_eval --output_path DIR` under
`DIR/<model>/`; `<name>_<date>.json` beside it for `--output_path DIR/<name>.json`) holds, per task, the
metric values and stderrs (`"exact_match,none": 0.9`, `"exact_match_stderr,none": 0.1`), the
task configs (whose `metadata` carries what our tasks recorded: seed, doc fingerprint, overflow
count, model type), and the run's model and settings. Each copy-tasks task in it gives one row
per metric. Files that cannot be used give a `Problem` naming the file and what is wrong; they
never stop the others from being read.
"""

from __future__ import annotations

import glob
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from copy_tasks.harness.decoding import non_greedy
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


# lm-eval names a results file `<prefix>_<date id>.json`, the date id being
# `datetime.now().isoformat()` with `-` for `:`; the prefix is `results` unless `--output_path`
# named a file. The samples beside it are `samples_<task>_<date id>.jsonl`.
RESULTS_NAME = re.compile(r"^(?P<prefix>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$")


def run_stamp(path: Path) -> str:
    """The date id lm-eval put in a results file's name (the name's stem if it has none).

    >>> run_stamp(Path("myres_2026-12-01T10-00-00.123456.json")), run_stamp(Path("results_x.json"))
    ('2026-12-01T10-00-00.123456', 'x')
    """
    match = RESULTS_NAME.match(path.name)
    return match["stamp"] if match else path.stem.removeprefix("results_")


def _results_in(folder: Path) -> set[Path]:
    """The results files lm-eval wrote under a folder: `results_*.json`, and any
    `<name>_<date id>.json` (from an `--output_path` that named a file)."""
    return {path for path in folder.rglob("*.json")
            if path.name.startswith("results_") or RESULTS_NAME.match(path.name)}


def find_result_files(inputs: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Every results file under the given folders, the given files, and the files lm-eval
    wrote for a given `--output_path` that named a file (`DIR/name.json` -> `DIR/name_<date>.json`),
    in sorted order. An input that holds none is a problem, named."""
    found, problems = set(), []
    for item in inputs:
        if item.is_dir():
            in_folder = _results_in(item)
            if not in_folder:
                problems.append(Problem(str(item), "holds no lm-eval results file (results_*.json, or "
                                                   "<name>_<date>.json for an --output_path ending in .json)",
                                        skipped=True))
            found.update(in_folder)
        elif item.is_file():
            found.add(item)
        elif item.suffix == ".json" and (written := sorted(
                path for path in item.parent.glob(f"{glob.escape(item.stem)}_*.json")
                if (match := RESULTS_NAME.match(path.name)) and match["prefix"] == item.stem)):
            found.update(written)
        else:
            problems.append(Problem(str(item), "no such file or folder", skipped=True))
    return sorted(found), problems


LARGEST_VALUE = 1e9  # no metric, stderr or count of ours comes near; larger values are corrupt


def _number(value: Any) -> float | None:
    """A finite value of plausible size as a float, else None (lm-eval's "N/A", NaN, missing,
    infinite, or a number too large to be a metric).

    >>> _number(0.25), _number("N/A"), _number(float("inf")), _number(10**400), _number(True)
    (0.25, None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and abs(number) <= LARGEST_VALUE else None


def _count(value: Any) -> int | str:
    """A count (n, seed, overflowed docs, parameters) as a non-negative int, or empty."""
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
    samples = path.with_name(f"samples_{task}_{run_stamp(path)}.jsonl")
    if not samples.is_file():
        return None, None
    try:
        return [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()], None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        return None, Problem(str(samples), f"is not valid JSON lines ({reason}); n taken from the results file")


def _scalar(value: Any) -> str | float | int:
    """A text or number cell (a task version, hash, fingerprint), or empty for anything else."""
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) and _plain(value) else ""


def _plain(value: str | int | float) -> bool:
    return _number(value) is not None if isinstance(value, (int, float)) else len(value) < 200


def _shown(value: Any) -> str:
    """A value for a message, cut short (a corrupt file can hold a 400-digit number)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _gen_kwargs(value: Any) -> dict:
    """lm-eval's recorded `--gen_kwargs`: a dict, or the command line's `k=v,k=v` string."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        pairs = (item.partition("=") for item in value.split(","))
        return {key.strip(): raw.strip() for key, _, raw in pairs if key.strip()}
    return {}


FLAG_LENGTH = 120  # a flag's text is cut to this many characters (a results file can hold anything)


def _capped(flag: str) -> str:
    """A flag cut to `FLAG_LENGTH` characters, saying how long it was.

    >>> _capped("limit=" + "9" * 200)[-20:]
    '... (206 characters)'
    """
    return flag if len(flag) <= FLAG_LENGTH else f"{flag[:FLAG_LENGTH - 24]}... ({len(flag)} characters)"


def _listed(values: list) -> str:
    """A list of doc indices for a flag: `3|7`, at most 10 shown.

    >>> _listed([3, 7]), _listed(list(range(12)))
    ('3|7', '0|1|2|3|4|5|6|7|8|9|... (12 docs)')
    """
    shown = "|".join(str(value) for value in values[:10])
    return shown + (f"|... ({len(values)} docs)" if len(values) > 10 else "")


def _flags(data: dict, n_shot: Any, metadata: dict, family_name: str) -> str:
    """What made a run differ from the tasks' defaults, in the order of `RUN_FLAGS` then the
    task's own: the docs scored (`limit`, `samples`), the decoding (`gen_kwargs`, and
    `not_greedy` when they replace greedy decoding), the prompt (`chat_template`,
    `system_instruction`, `num_fewshot`), and options of the family (a lookup in the authors'
    format is other docs than the default). A user's `max_gen_toks` is shown as the budgets
    our task really sent (it only raises budgets), when the task recorded them."""
    config = _mapping(data.get("config"), "config")
    flags = []
    limit = metadata.get("copy_tasks_limit", config.get("limit"))
    if limit is not None:
        flags.append(f"limit={limit}")
    if isinstance(metadata.get("copy_tasks_samples"), list):
        flags.append("samples=" + _listed(metadata["copy_tasks_samples"]))
    gen_kwargs = dict(_gen_kwargs(config.get("gen_kwargs")))
    sent = metadata.get("copy_tasks_generation_budgets")
    budgets = None
    if "max_gen_toks" in gen_kwargs and isinstance(sent, list) and sent:
        del gen_kwargs["max_gen_toks"]
        budgets = "max_gen_toks_sent=" + "|".join(str(budget) for budget in sent)
    if gen_kwargs:
        flags.append("gen_kwargs=" + json.dumps(gen_kwargs, sort_keys=True))
    if non_greedy(gen_kwargs):
        flags.append("not_greedy")
    if data.get("chat_template") or data.get("chat_template_sha") or metadata.get("copy_tasks_prompt_format") == "chat":
        flags.append("chat_template")
    if data.get("system_instruction") or data.get("system_instruction_sha"):
        flags.append(f"system_instruction={str(data.get('system_instruction_sha') or '')[:12]}".rstrip("="))
    if n_shot not in (None, 0, "0"):
        flags.append(f"num_fewshot={n_shot}")
    if budgets:
        flags.append(budgets)
    for option in FAMILIES[family_name].options:
        value = metadata.get(option.key, option.default)
        if value != option.default and isinstance(value, (str, int)):
            flags.append(f"{option.key}={value}")
    return ";".join(_capped(flag) for flag in flags)


def rows_from_file(path: Path) -> tuple[list[dict], list[Problem]]:
    """The leaderboard rows of one results file, and what was wrong with it. Nothing in one
    file stops the others: a file that cannot be read as lm-eval results is skipped, named,
    with the reason."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return [], [Problem(str(path), f"cannot be read ({error}); skipped", skipped=True)]
    except json.JSONDecodeError as error:
        return [], [Problem(str(path), f"is not valid JSON, perhaps truncated ({error}); skipped", skipped=True)]
    except RecursionError:
        return [], [Problem(str(path), "is JSON nested too deeply to be lm-eval results; skipped", skipped=True)]
    try:
        return _rows(path, data)
    except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as error:
        return [], [Problem(str(path), f"is not lm-eval results as this reader knows them ({type(error).__name__}: "
                                       f"{error}); skipped", skipped=True)]


def _rows(path: Path, data: Any) -> tuple[list[dict], list[Problem]]:
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        return [], [Problem(str(path), "is not an lm-eval results file (no \"results\" object); skipped", skipped=True)]
    ours = {task: parse_task_name(task) for task in data["results"]}
    ours = {task: parsed for task, parsed in ours.items() if parsed and parsed[2] > 0}
    if not ours:
        tasks = ", ".join(sorted(data["results"])) or "none"
        return [], [Problem(str(path), f"has no copy-tasks task (its tasks: {tasks}); skipped", skipped=True)]
    results = {task: _mapping(data["results"][task], f"results.{task}") for task in ours}
    if all(any(key.startswith(PREDICT_ONLY_METRIC + ",") for key in results[task]) for task in ours):
        return [], [Problem(str(path), "holds predictions only (lm-eval --predict_only: no scores); left out")]

    rows: list[dict] = []
    problems: list[Problem] = []
    config = _mapping(data.get("config"), "config")
    configs, n_samples_of = _mapping(data.get("configs"), "configs"), _mapping(data.get("n-samples"), "n-samples")
    versions, hashes = _mapping(data.get("versions"), "versions"), _mapping(data.get("task_hashes"), "task_hashes")
    n_shots = _mapping(data.get("n-shot"), "n-shot")
    backend = str(config.get("model") or data.get("model_source") or "")
    model = _model_id(data)
    if any(char in model for char in "\r\n"):
        problems.append(Problem(str(path), f"model name {model!r} has line breaks; written with spaces"))
        model = re.sub(r"[\r\n]+", " ", model)
    date = _run_date(data, path)
    run = f"{model}@{date}"
    for task in sorted(ours):
        family_name, variant, length = ours[task]
        metadata = _mapping(_mapping(configs.get(task), f"configs.{task}").get("metadata"),
                            f"configs.{task}.metadata")
        n = _count(_mapping(n_samples_of.get(task), f"n-samples.{task}").get("effective")) or None
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
            "model_revision": _scalar(config.get("model_sha") or config.get("model_revision")),
            "model_source": _scalar(metadata.get("copy_tasks_model_source")),
            "backend": backend,
            "dtype": str(config.get("model_dtype") or ""),
            "parameters": _count(config.get("model_num_parameters")) or "",
            "architecture": architecture(backend, _scalar(metadata.get("copy_tasks_model_type")) or None),
            "model_type": _scalar(metadata.get("copy_tasks_model_type")),
            "lm_eval_version": _scalar(data.get("lm_eval_version")),
            "copy_tasks_version": _scalar(metadata.get("copy_tasks_version")),
            "task": task,
            "family": family_name,
            "variant": variant,
            "task_version": _scalar(versions.get(task)),
            "task_hash": _scalar(hashes.get(task)),
            "docs_sha256": _scalar(metadata.get("copy_tasks_docs_sha256")),
            "seed": _count(metadata.get("copy_tasks_seed")),
            "length": length,
            "unit": FAMILIES[family_name].unit,
            "n": n if n is not None else "",
            "overflow_docs": "unknown" if metadata.get("copy_tasks_overflow_docs") == "unknown" else
            _count(metadata.get("copy_tasks_overflow_docs")),
            "date": date,
            "flags": _flags(data, n_shots.get(task), metadata, family_name),
            "source_file": path.name,
        }
        values = results[task]
        for key in sorted(values):
            if key in SKIPPED_RESULT_KEYS or "_stderr," in key or key.startswith(PREDICT_ONLY_METRIC + ","):
                continue
            metric, _, metric_filter = key.partition(",")
            value, stderr = values[key], values.get(f"{metric}_stderr,{metric_filter}")
            if _number(value) is None and not _is_missing(value):
                problems.append(Problem(str(path), f"{task}: {metric} = {_shown(value)} is not a finite number of "
                                                   "plausible size; left empty"))
            if stderr == "N/A":
                problems.append(Problem(str(path), f"{task}: {metric} has stderr \"N/A\"; left empty"))
            elif not _is_missing(stderr) and (_number(stderr) is None or _number(stderr) < 0):
                problems.append(Problem(str(path), f"{task}: {metric} has stderr {_shown(stderr)}, not a number >= 0; "
                                                   "left empty"))
                stderr = None
            rows.append({
                **common,
                "metric": metric if metric_filter in ("none", "") else key,
                "value": _number(value),
                "stderr": _number(stderr),
            })
    return rows, problems
