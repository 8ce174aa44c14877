"""What a results file records about the model: its config's `model_type` (from which the
leaderboard tells transformers from state-space models) and, for a folder `copy-tasks model`
prepared, the PyPI source it came from (named in the folder's marker file)."""

from __future__ import annotations

import json
from pathlib import Path

from copy_tasks.harness.lm_eval_internals import hf_config, unwrap_model

PREPARED_MARKER = "copy_tasks_model.json"  # written by `copy_tasks.models.real_models.prepare`


def model_type_of(lm) -> str | None:
    """The `model_type` of the live model's HF config, if it has one (`hf` and its subclasses,
    `vllm`)."""
    value = getattr(hf_config(unwrap_model(lm)), "model_type", None)
    return value if isinstance(value, str) else None


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
