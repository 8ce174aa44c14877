"""lm-eval results files as `lm_eval --output_path` writes them, for the leaderboard tests."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timezone
from pathlib import Path

from hypothesis import strategies as st

from copy_tasks.harness.lm_eval_internals import results_key

LM_EVAL_VERSION = "0.4.13"


def write_results(
    folder: Path,
    model: str,
    scores: dict[str, dict[str, float | str]],
    date: str = "2026-11-01T10:00:00",
    backend: str = "hf",
    n: int = 20,
    model_type: str | None = "gemma3_text",
    task_metadata: dict[str, dict] | None = None,
    **top_level,
) -> Path:
    """A results file for `model` whose tasks have the given metric values.

    `scores`: task -> {"exact_match": 0.9, "exact_match_stderr": 0.1, ...}; the filter `none`
    is added to every key, as lm-eval writes them. `task_metadata`: task -> more metadata the
    task recorded (a family option: {"copy_tasks_lookup_format": "paper"}). `n`: the docs of each
    task; the default is the fewest whose values the tables show without their count
    (`curves.FEW_DOCS`)."""
    when = datetime.fromisoformat(date).replace(tzinfo=timezone.utc)
    results = {
        task: {"alias": task, **{results_key(key): value for key, value in metrics.items()}, "sample_len": n}
        for task, metrics in scores.items()
    }
    configs = {
        task: {"task": task, "metadata": {
            "version": 1.0, "copy_tasks_seed": 1234, "copy_tasks_docs": n,
            "copy_tasks_version": "0.1.0", "copy_tasks_docs_sha256": f"sha-{task}",
            "copy_tasks_overflow_docs": 0, "copy_tasks_model_type": model_type,
            "copy_tasks_model_source": None, **(task_metadata or {}).get(task, {}),
        }}
        for task in scores
    }
    data = {
        "results": results,
        "configs": configs,
        "versions": {task: 1.0 for task in scores},
        "n-shot": {task: 0 for task in scores},
        "n-samples": {task: {"original": n, "effective": n} for task in scores},
        "config": {"model": backend, "model_args": {"pretrained": model}, "model_num_parameters": 1000,
                   "model_dtype": "torch.float32", "model_revision": "main", "model_sha": "",
                   "limit": None, "gen_kwargs": {}},
        "task_hashes": {task: f"hash-{task}" for task in scores},
        "model_name": model,
        "model_source": backend,
        "chat_template": None,
        "chat_template_sha": None,
        "date": when.timestamp(),
        "lm_eval_version": LM_EVAL_VERSION,
        **top_level,
    }
    path = folder / f"results_{when.strftime('%Y-%m-%dT%H-%M-%S.000000')}.json"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}


def read_rows(out: Path) -> list[dict]:
    with (out / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def good_file(folder: Path) -> Path:
    return write_results(folder, "good-model", GOOD, date="2026-11-02T10:00:00")


# ---- hostile results files ------------------------------------------------------------------
JSON = st.recursive(st.none() | st.booleans() | st.integers(min_value=-10**400, max_value=10**400)
                    | st.floats() | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children,
                                                                                      max_size=3), max_leaves=8)


TASK = "phonebook_copy_20"


PATHS = [("config",), ("configs",), ("configs", TASK), ("configs", TASK, "metadata"), ("n-samples",),
         ("n-samples", TASK), ("results", TASK), ("results", TASK, results_key("exact_match")),
         ("results", TASK, results_key("exact_match", stderr=True)), ("versions",), ("n-shot",), ("date",),
         ("model_name",), ("task_hashes",), ("results",), ("configs", TASK, "metadata", "copy_tasks_overflow_docs")]


def mutated(data: dict, path: tuple[str, ...], value) -> dict:
    """`data` with the field at `path` set to `value` (unchanged where the path runs into a non-object)."""
    target = data
    for key in path[:-1]:
        target = target.setdefault(key, {})
        if not isinstance(target, dict):
            return data
    target[path[-1]] = value
    return data
