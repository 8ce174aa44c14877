"""The size in bits of a fixed-size state: what a recurrent model carries from one token to the
next, whatever the length of what it has read. A transformer has none (its cache grows with
the prompt), and neither does the n-gram copier; the leaderboard's `state_bits` column is empty
for them.

How each is counted, per layer, from the model's config: the numbers the recurrence needs to go
on, each part at the width its cache holds it in. transformers keeps the SSM and RWKV-4
attention states in float32 whatever the weights (float32 or wider for Mamba-1's SSM state:
float64 under float64 weights; releases whose Mamba models have a cache class of their own,
5.0 among them, keep the SSM state in the weights' dtype: `ssm_state_width`); the convolution
inputs and token shifts follow the run's dtype (`float_bits`: 16 under bfloat16 weights).

| `model_type` | numbers per layer: in float32 (at least) + in the weights' dtype |
|---|---|
| `mamba` (HF Mamba-1) | I x S (SSM, float32 or wider) + I x (K - 1) (convolution) |
| `mamba2` (HF Mamba-2) | heads x `head_dim` x S (SSM) + (`expand` x H + 2 x `n_groups` x S) x (K - 1) |
| `rwkv` (HF RWKV-4) | 3 x `attention_hidden_size` (numerator, denominator, maximum) + 2 x H (shifts) |
| `rwkv7` (fla's RWKV-7) | heads x `head_dim` x `head_dim` (WKV, fla's kernels) + 2 x H (token shifts) |
| `copy_tasks_lstm` (ours) | none + 2 x H (hidden and cell vectors) |

(H: `hidden_size`, I: `intermediate_size`, S: `state_size`, K: `conv_kernel`.)

HF keeps `conv_kernel` inputs in its convolution cache; the oldest is never read again, so
`conv_kernel - 1` are counted. An analytic model with a bit budget (`bounded_state`) says its
own (`state_bits` on the model).

    >>> from types import SimpleNamespace as Config
    >>> state_bits(Config(model_type="copy_tasks_lstm", hidden_size=256, num_hidden_layers=6))
    98304
    >>> state_bits(Config(model_type="mamba", hidden_size=768, intermediate_size=1536, state_size=16,
    ...                   conv_kernel=4, num_hidden_layers=24))
    22413312
    >>> state_bits(Config(model_type="llama")) is None, float_bits("torch.float16"), float_bits(None)
    (True, 16, 32)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

from copy_tasks.harness.lm_eval_internals import hf_config, unwrap_model
from copy_tasks.harness.model_types import has_fixed_state

FLOAT_BITS = {"float16": 16, "half": 16, "bfloat16": 16, "float64": 64, "double": 64}
DEFAULT_FLOAT_BITS = 32  # a float, where the dtype says nothing else


def float_bits(dtype) -> int:
    """The bits of one number of a model run in `dtype` (`torch.bfloat16`, "float16", "auto",
    None, ...): 16 or 64 where the dtype says so, else 32."""
    name = str(dtype or "").removeprefix("torch.").strip().lower()
    return FLOAT_BITS.get(name, DEFAULT_FLOAT_BITS)


# The width of a part of the state: float32 whatever the weights, float32 or the weights' when
# wider, or the weights' own.
FLOAT32, FLOAT32_OR_WIDER, WEIGHTS = "float32", "float32 or wider", "weights"


def part_bits(width: str, weight_bits: int) -> int:
    """The bits of one number of a state part kept at `width`, under weights of `weight_bits`.

    >>> part_bits(FLOAT32, 16), part_bits(FLOAT32_OR_WIDER, 64), part_bits(WEIGHTS, 16)
    (32, 64, 16)
    """
    return {FLOAT32: 32, FLOAT32_OR_WIDER: max(32, weight_bits), WEIGHTS: weight_bits}[width]


# transformers releases whose Mamba models keep their state in a cache class of their own
# (`MambaCache`, `Mamba2Cache`: 5.0 has them, 5.25 does not) allocate every part of it in the
# weights' dtype; the later layer caches keep the SSM state in float32 (or wider).
OWN_CACHE_CLASSES = {"mamba": ("transformers.models.mamba.modeling_mamba", "MambaCache"),
                     "mamba2": ("transformers.models.mamba2.modeling_mamba2", "Mamba2Cache")}


@cache
def ssm_state_width(model_type: str, width: str) -> str:
    """The width the installed transformers keeps a Mamba SSM state at: `width` (the layer
    caches'), or the weights' own where the model has a cache class of its own."""
    module, cache_class = OWN_CACHE_CLASSES[model_type]
    try:
        own = hasattr(importlib.import_module(module), cache_class)
    except ImportError:
        own = False
    return WEIGHTS if own else width


def _merged(parts: list[tuple[str, int]]) -> dict[str, int]:
    merged: dict[str, int] = {}
    for width, numbers in parts:
        merged[width] = merged.get(width, 0) + numbers
    return merged


def _mamba(config) -> dict[str, int]:
    inner = getattr(config, "intermediate_size", None) or config.expand * config.hidden_size
    return _merged([(ssm_state_width("mamba", FLOAT32_OR_WIDER), inner * config.state_size),
                    (WEIGHTS, inner * (config.conv_kernel - 1))])


def _mamba2(config) -> dict[str, int]:
    channels = config.expand * config.hidden_size + 2 * config.n_groups * config.state_size
    return _merged([(ssm_state_width("mamba2", FLOAT32), config.num_heads * config.head_dim * config.state_size),
                    (WEIGHTS, channels * (config.conv_kernel - 1))])


def _rwkv(config) -> dict[str, int]:
    return {FLOAT32: 3 * (getattr(config, "attention_hidden_size", None) or config.hidden_size),
            WEIGHTS: 2 * config.hidden_size}


def _rwkv7(config) -> dict[str, int]:
    head_dim = getattr(config, "head_dim", None) or 64
    heads = getattr(config, "num_heads", None) or config.hidden_size // head_dim
    return {FLOAT32: heads * head_dim * head_dim, WEIGHTS: 2 * config.hidden_size}


def _lstm(config) -> dict[str, int]:
    return {WEIGHTS: 2 * config.hidden_size}


# The fixed-state model types (`model_types.has_fixed_state`) whose state we know how to count.
NUMBERS_PER_LAYER: dict[str, Callable] = {
    "mamba": _mamba, "mamba2": _mamba2, "rwkv": _rwkv, "rwkv7": _rwkv7, "copy_tasks_lstm": _lstm,
}


def state_parts(config) -> dict[str, int] | None:
    """The numbers in the state of a model of a known recurrent `model_type`, by the width they
    are kept at; None for a transformer, a hybrid, an architecture we do not know, a config
    missing a field we need."""
    model_type = getattr(config, "model_type", None)
    per_layer = NUMBERS_PER_LAYER.get(model_type) if has_fixed_state(model_type) else None
    if per_layer is None:
        return None
    try:
        return {width: int(numbers) * int(config.num_hidden_layers) for width, numbers in per_layer(config).items()}
    except (AttributeError, TypeError):
        return None


def state_numbers(config) -> int | None:
    """The numbers in the state (`state_parts`, all widths together), else None."""
    parts = state_parts(config)
    return None if parts is None else sum(parts.values())


def state_bits(config, dtype=None) -> int | None:
    """The bits of the state under weights of `dtype`, each part (`state_parts`) at the width it
    is kept at; None where the state has no fixed size we know."""
    parts = state_parts(config)
    if parts is None:
        return None
    return sum(numbers * part_bits(width, float_bits(dtype)) for width, numbers in parts.items())


def state_bits_of(lm) -> int | None:
    """The state size of the live model lm-eval runs: an analytic model's own `state_bits`, else
    from its HF config and the dtype of its weights."""
    model = unwrap_model(lm)
    own = getattr(model, "state_bits", None)
    if isinstance(own, int) and not isinstance(own, bool):
        return own
    config = hf_config(model)
    if config is None:
        return None
    weights = getattr(model, "model", None)
    return state_bits(config, getattr(weights, "dtype", None) or getattr(config, "torch_dtype", None))
