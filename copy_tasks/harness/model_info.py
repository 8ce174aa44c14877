"""What a results file records about the model: its config's `model_type` (from which the
leaderboard tells transformers from state-space models) and, for a folder `copy-tasks model`
prepared, the PyPI source it came from (named in the folder's marker file)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from copy_tasks.harness.lm_eval_internals import hf_config, unwrap_model
from copy_tasks.harness.model_types import MODEL_TYPES

PREPARED_MARKER = "copy_tasks_model.json"  # written by `copy_tasks.experiments.real_models.prepare`
ANALYTIC_MARKER = "copy_tasks_analytic"  # class attribute of our reference and scripted models
# The reference models' names in lm-eval's model registry (their classes: `copy_tasks.models.BACKENDS`).
REFERENCE_MODELS = ("ngram_copier", "bounded_state")
# The model arguments each of our analytic backends takes (its class's own parameters, tested) ...
ANALYTIC_MODEL_ARGS = {"ngram_copier": ("unit", "n"), "bounded_state": ("bits",),
                       "scripted": ("style", "answers", "tokenizer")}
# ... beside those lm-eval hands every model: `simple_evaluate`'s run settings, and the CLI's
# `--trust_remote_code` as a model argument.
LM_EVAL_MODEL_ARGS = ("batch_size", "max_batch_size", "device", "trust_remote_code")
# class attribute of a model of ours whose answers change with its version (`bounded_state`'s readers)
VERSION_MARKER = "copy_tasks_model_version"


def model_type_of(lm) -> str | None:
    """The `model_type` of the live model's HF config, if it has one (`hf` and its subclasses,
    `vllm`)."""
    value = getattr(hf_config(unwrap_model(lm)), "model_type", None)
    return value if isinstance(value, str) else None


def position_scheme(config) -> str | None:
    """How a transformer's config encodes position, where it says so plainly: `NoPE`, `RoPE`,
    `ALiBi` or `Hard-ALiBi` (that of its `model_type`, `model_types.MODEL_TYPES`, else read from
    the config); None for other models and configs we cannot read.

    >>> from types import SimpleNamespace as Config
    >>> position_scheme(Config(model_type="gpt_neox", rope_parameters={"partial_rotary_factor": 0.0}))
    'NoPE'
    >>> position_scheme(Config(model_type="bloom")), position_scheme(Config(model_type="mamba"))
    ('ALiBi', None)
    """
    model_type = getattr(config, "model_type", None)
    known = MODEL_TYPES.get(model_type) if isinstance(model_type, str) else None
    if known is not None and known.positions:
        return known.positions
    if model_type == "falcon" and getattr(config, "alibi", False):
        return "ALiBi"
    rope = getattr(config, "rope_parameters", None)
    if model_type == "gpt_neox" and isinstance(rope, Mapping):
        return "NoPE" if rope.get("partial_rotary_factor", 1.0) == 0 else "RoPE"
    return None


def positions_of(lm) -> str | None:
    """`position_scheme` of the live model's HF config."""
    return position_scheme(hf_config(unwrap_model(lm)))


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
    """Where a folder built by `copy-tasks model` came from (its PyPI source), else None (also
    for a marker that is damaged: the task then records no source rather than fail).

    >>> prepared_source("not/a/prepared/folder") is None
    True
    """
    if not isinstance(pretrained, (str, Path)):
        return None
    marker = Path(pretrained) / PREPARED_MARKER
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    source = record.get("source") if isinstance(record, dict) else None
    return source if isinstance(source, str) else None
