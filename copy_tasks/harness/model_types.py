"""The one table of what a config's `model_type` is (`MODEL_TYPES`): its architecture family
(a transformer, a state-space model, a recurrent network, a hybrid of attention and a recurrence)
and, where every model of the type has the same, its position scheme.

The leaderboard's `architecture` column reads it (`copy_tasks.report.rows`), a results file's
position scheme (`copy_tasks.harness.model_info`) and the size of a fixed-size state
(`copy_tasks.harness.state_size`, for the types that have one) too. A `model_type` not in the
table is a transformer (transformers' own types are mostly), one that no config gave is unknown.

    >>> architecture_of("mamba"), architecture_of("jamba"), architecture_of("copy_tasks_lstm"), architecture_of("llama")
    ('ssm', 'hybrid', 'rnn', 'transformer')
    >>> architecture_of(None), MODEL_TYPES["bloom"].positions, has_fixed_state("rwkv7"), has_fixed_state("jamba")
    ('unknown', 'ALiBi', True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

TRANSFORMER, SSM, RNN, HYBRID, UNKNOWN = "transformer", "ssm", "rnn", "hybrid", "unknown"
FIXED_STATE = (SSM, RNN)  # what they carry from one token to the next does not grow with the prompt


@dataclass(frozen=True)
class ModelType:
    """What a `model_type` is: its architecture family, and the position scheme every model of
    the type has (None: none, or it depends on the config)."""

    architecture: str
    positions: str | None = None


MODEL_TYPES: dict[str, ModelType] = {
    **dict.fromkeys(("mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7", "xlstm"), ModelType(SSM)),
    **dict.fromkeys(("jamba", "zamba", "zamba2", "bamba", "falcon_h1", "granitemoehybrid", "nemotron_h",
                     "recurrent_gemma", "lfm2", "hymba", "qwen3_next", "minimax"), ModelType(HYBRID)),
    "copy_tasks_lstm": ModelType(RNN),
    "copy_tasks_hard_alibi": ModelType(TRANSFORMER, "Hard-ALiBi"),
    "copy_tasks_conv_attention": ModelType(TRANSFORMER, "short conv"),
    **dict.fromkeys(("bloom", "mpt"), ModelType(TRANSFORMER, "ALiBi")),
}


def architecture_of(model_type: str | None) -> str:
    """The architecture family of a `model_type` (`MODEL_TYPES`; any other is a transformer,
    none is unknown)."""
    if not isinstance(model_type, str) or not model_type:
        return UNKNOWN
    known = MODEL_TYPES.get(model_type)
    return known.architecture if known else TRANSFORMER


def has_fixed_state(model_type: str | None) -> bool:
    """Whether models of a `model_type` carry a state of fixed size (an SSM, an RNN)."""
    return architecture_of(model_type) in FIXED_STATE
