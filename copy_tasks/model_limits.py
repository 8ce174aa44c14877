"""What the evaluated model can read: its tokenizer and context length, from the model args.

lm-eval merges `--model_args` into every task's metadata, so the dataset hook sees
`pretrained`, `tokenizer`, `max_length`, `gguf_file`. The context is resolved as lm-eval's HF
backend resolves it: `max_length` from the model args, else the model config
(`n_positions`, `max_position_embeddings`, `n_ctx`, looking in `text_config` first), else the
tokenizer's `model_max_length`, else lm-eval's default of 2048 tokens.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

log = logging.getLogger("copy_tasks")

LM_EVAL_DEFAULT_CONTEXT = 2048
CONTEXT_CONFIG_ATTRS = ("n_positions", "max_position_embeddings", "n_ctx")
TOKENIZER_UNSET = int(1e29)  # transformers' "no limit" is 1e30


@dataclass(frozen=True)
class ModelLimits:
    """A tokenizer (None when unknown) and the context in tokens, with where it came from."""

    tokenizer: Any
    context: int
    context_source: str


def _hf_kwargs(metadata: Mapping[str, Any]) -> dict[str, Any]:
    kwargs = {}
    for key in ("revision", "trust_remote_code", "subfolder"):
        if metadata.get(key) is not None:
            kwargs[key] = metadata[key]
    return kwargs


@cache
def _tokenizer(name: str, gguf_file: str | None, frozen_kwargs: tuple) -> Any:
    from transformers import AutoTokenizer

    extra = {"gguf_file": gguf_file} if gguf_file else {}
    return AutoTokenizer.from_pretrained(name, **extra, **dict(frozen_kwargs))


@cache
def _model_config(name: str, gguf_file: str | None, frozen_kwargs: tuple) -> Any:
    from transformers import AutoConfig

    extra = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        return AutoConfig.from_pretrained(name, **extra, **dict(frozen_kwargs))
    except (OSError, ValueError) as error:
        log.warning("copy-tasks: could not read the model config of %s (%s)", name, error)
        return None


def _config_context(config: Any) -> int | None:
    for candidate in (getattr(config, "text_config", None), config):
        for attr in CONTEXT_CONFIG_ATTRS:
            value = getattr(candidate, attr, None) if candidate is not None else None
            if isinstance(value, int) and value > 0:
                return value
    return None


def model_type(metadata: Mapping[str, Any]) -> str | None:
    """The `model_type` of the model config named in the merged task metadata, if readable
    (for example `gemma3_text`, `mamba`, `gpt_neox`); the leaderboard maps it to an
    architecture family."""
    pretrained = metadata.get("pretrained")
    if not isinstance(pretrained, str):
        return None
    config = _model_config(pretrained, metadata.get("gguf_file"), tuple(sorted(_hf_kwargs(metadata).items())))
    return getattr(config, "model_type", None)


def model_limits(metadata: Mapping[str, Any]) -> ModelLimits:
    """Tokenizer and context of the model named in the merged task metadata."""
    pretrained = metadata.get("pretrained")
    tokenizer_name = metadata.get("tokenizer") or pretrained
    hf_kwargs = tuple(sorted(_hf_kwargs(metadata).items()))
    gguf_file = metadata.get("gguf_file")
    tokenizer = None
    if isinstance(tokenizer_name, str):
        try:
            tokenizer = _tokenizer(
                tokenizer_name, None if metadata.get("tokenizer") else gguf_file, hf_kwargs
            )
        except (OSError, ValueError) as error:
            log.warning("copy-tasks: could not load tokenizer %s (%s)", tokenizer_name, error)

    max_length = metadata.get("max_length")
    if max_length:
        return ModelLimits(tokenizer, int(max_length), "max_length in the model args")
    if isinstance(pretrained, str):
        context = _config_context(_model_config(pretrained, gguf_file, hf_kwargs))
        if context:
            return ModelLimits(tokenizer, context, "the model config")
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and 0 < limit < TOKENIZER_UNSET:
        return ModelLimits(tokenizer, limit, "the tokenizer's model_max_length")
    return ModelLimits(tokenizer, LM_EVAL_DEFAULT_CONTEXT, "lm-eval's default")
