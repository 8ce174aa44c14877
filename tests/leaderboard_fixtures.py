"""lm-eval results files as `lm_eval --output_path` writes them, for the leaderboard tests."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

LM_EVAL_VERSION = "0.4.13"


def write_results(
    folder: Path,
    model: str,
    scores: dict[str, dict[str, float | str]],
    date: str = "2026-11-01T10:00:00",
    backend: str = "hf",
    n: int = 10,
    model_type: str | None = "gemma3_text",
    task_metadata: dict[str, dict] | None = None,
    **top_level,
) -> Path:
    """A results file for `model` whose tasks have the given metric values.

    `scores`: task -> {"exact_match": 0.9, "exact_match_stderr": 0.1, ...}; the filter `none`
    is added to every key, as lm-eval writes them. `task_metadata`: task -> more metadata the
    task recorded (a family option: {"copy_tasks_lookup_format": "paper"})."""
    when = datetime.fromisoformat(date).replace(tzinfo=timezone.utc)
    results = {
        task: {"alias": task, **{f"{key},none": value for key, value in metrics.items()}, "sample_len": n}
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
