"""What a results file records about the model: its config's `model_type` (from which the
leaderboard tells transformers from state-space models) and, for a folder `copy-tasks model`
prepared, the PyPI source it came from (named in the folder's marker file)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from copy_tasks.harness.lm_eval_internals import hf_config, unwrap_model

PREPARED_MARKER = "copy_tasks_model.json"  # written by `copy_tasks.experiments.real_models.prepare`
ANALYTIC_MARKER = "copy_tasks_analytic"  # class attribute of our reference and scripted models


def model_type_of(lm) -> str | None:
    """The `model_type` of the live model's HF config, if it has one (`hf` and its subclasses,
    `vllm`)."""
    value = getattr(hf_config(unwrap_model(lm)), "model_type", None)
    return value if isinstance(value, str) else None


def _args(model_args: str | Mapping | None) -> dict[str, str]:
    if isinstance(model_args, Mapping):
        return {str(key): str(value) for key, value in model_args.items()}
    pairs = (item.partition("=") for item in (model_args or "").split(","))
    return {key.strip(): value.strip() for key, _, value in pairs if key.strip()}


def analytic_model_name(model: str, model_args: str | Mapping | None) -> str:
    """The name of a run of one of our analytic models, which have no `pretrained=`: the model
    and its args (a path as its last part), for the folder lm-eval writes the results to.

    >>> analytic_model_name("ngram_copier", "unit=word,n=5"), analytic_model_name("bounded_state", "")
    ('ngram_copier(n=5,unit=word)', 'bounded_state')
    >>> analytic_model_name("scripted", {"style": "eos", "answers": "/tmp/x/key.json"})
    'scripted(answers=key.json,style=eos)'
    """
    args = _args(model_args)
    shown = ",".join(f"{key}={os.path.basename(args[key].rstrip('/')) or args[key]}" for key in sorted(args))
    return f"{model}({shown})" if shown else model


def prepared_source(pretrained: object) -> str | None:
    """Where a folder built by `copy-tasks model` came from (its PyPI source), else None.

    >>> prepared_source("not/a/prepared/folder") is None
    True
    """
    if not isinstance(pretrained, str):
        return None
    marker = Path(pretrained) / PREPARED_MARKER
    if not marker.is_file():
        return None
    return json.loads(marker.read_text()).get("source")
