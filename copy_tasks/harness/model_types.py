"""What a config's `model_type` is, where the run could not measure it (`MODEL_TYPES`): its
architecture family (a transformer, a state-space model, a recurrent network, a hybrid of
attention and a recurrence) and, where every model of the type has the same, its position scheme.

A run records the architecture its model's memory shows (`copy_tasks.harness.state_size`:
measured from the cache, so a new model type needs no entry here); the leaderboard reads this
table only for rows that recorded none (runs before that, backends without the model in the
process), and a results file's position scheme (`copy_tasks.harness.model_info`) reads it too. A
`model_type` not in the table is unknown, never a transformer by default.

    >>> architecture_of("mamba"), architecture_of("jamba"), architecture_of("copy_tasks_lstm"), architecture_of("llama")
    ('ssm', 'hybrid', 'rnn', 'transformer')
    >>> architecture_of(None), architecture_of("lfm3_new"), MODEL_TYPES["bloom"].positions
    ('unknown', 'unknown', 'ALiBi')
"""

from __future__ import annotations

from dataclasses import dataclass

TRANSFORMER, SSM, RNN, HYBRID, UNKNOWN = "transformer", "ssm", "rnn", "hybrid", "unknown"


@dataclass(frozen=True)
class ModelType:
    """What a `model_type` is: its architecture family, and the position scheme every model of
    the type has (None: none, or it depends on the config)."""

    architecture: str
    positions: str | None = None


MODEL_TYPES: dict[str, ModelType] = {
    **dict.fromkeys(("mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7", "xlstm"), ModelType(SSM)),
    **dict.fromkeys(("jamba", "zamba", "zamba2", "bamba", "falcon_h1", "granitemoehybrid", "nemotron_h",
                     "recurrent_gemma", "lfm2", "lfm2_moe", "hymba", "qwen3_next", "qwen3_5", "qwen3_5_text",
                     "qwen3_5_moe_text", "kimi_linear", "olmo_hybrid", "bailing_hybrid", "lara_mini", "zaya",
                     "inkling_text"), ModelType(HYBRID)),
    "copy_tasks_lstm": ModelType(RNN),
    "copy_tasks_hard_alibi": ModelType(TRANSFORMER, "Hard-ALiBi"),
    "copy_tasks_conv_attention": ModelType(TRANSFORMER, "short conv"),
    **dict.fromkeys(("bloom", "mpt"), ModelType(TRANSFORMER, "ALiBi")),
    # transformers of the runs published before memory was measured (their rows record no label)
    **dict.fromkeys(("gpt_neox", "gpt2", "llama", "gemma", "gemma2", "gemma3", "gemma3_text", "qwen2", "qwen3",
                     "mistral", "phi3", "olmo2", "smollm3"), ModelType(TRANSFORMER)),
}


def architecture_of(model_type: str | None) -> str:
    """The architecture family of a `model_type` (`MODEL_TYPES`; any other, or none, is unknown):
    for a run that recorded no measured label (`copy_tasks.harness.state_size`)."""
    known = MODEL_TYPES.get(model_type) if isinstance(model_type, str) else None
    return known.architecture if known else UNKNOWN
