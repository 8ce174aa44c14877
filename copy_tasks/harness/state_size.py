"""What the model a run scores keeps of a prompt (`memory_of`), and the architecture that follows
(`architecture_label`): the leaderboard's `state_bits`, `state_bits_per_token` and
`architecture` columns.

Three sources, in order:
- an analytic model's own count (`bounded_state`'s `state_bits`: a fixed state, nothing grows;
  `ngram_copier`'s `state_bits_per_token`: the prompt's text, 8 bits a byte, nothing fixed);
- the model's cache, measured (`copy_tasks.harness.cache_memory.measure_memory`): any model
  transformers runs with a cache, whatever its architecture;
- a hand count, only for our model types that keep no cache object (`HAND_COUNTS`): the LSTM (its
  hidden and cell vectors, 2 x H a layer) and conv-then-attention (the last `conv_kernel - 1`
  inputs of each convolution, a window of H numbers a layer a token, and a key and a value of H
  numbers a layer a token, growing), each at the weights' width (`float_bits`).

The measurement runs once per model object (two forward passes of a few tokens) and is kept on it.

    >>> from types import SimpleNamespace as Config
    >>> lstm = hand_count(Config(model_type="copy_tasks_lstm", hidden_size=256, num_hidden_layers=6), "float32")
    >>> lstm.state_bits, lstm.bits_per_token, architecture_label(lstm, "copy_tasks_lstm", None)
    (98304, 0, 'rnn')
    >>> conv = hand_count(Config(model_type="copy_tasks_conv_attention", hidden_size=64, num_hidden_layers=2,
    ...                          conv_kernel=3), "float32")
    >>> conv.state_bits, conv.bits_per_token, architecture_label(conv, "copy_tasks_conv_attention", "short conv")
    (8192, 8192, 'transformer (short conv)')
    >>> hand_count(Config(model_type="llama"), None) is None, float_bits("torch.bfloat16"), float_bits(None)
    (True, 16, 32)
"""

from __future__ import annotations

from collections.abc import Callable

from copy_tasks.harness.cache_memory import TRANSFORMER, Memory, measure_memory
from copy_tasks.harness.lm_eval_internals import hf_config, unwrap_model

FLOAT_BITS = {"float16": 16, "half": 16, "bfloat16": 16, "float64": 64, "double": 64}
DEFAULT_FLOAT_BITS = 32  # a float, where the dtype says nothing else
MEASURED = "_copy_tasks_memory"  # the attribute a model's measured memory is kept in


def float_bits(dtype) -> int:
    """The bits of one number of a model run in `dtype` (`torch.bfloat16`, "float16", "auto",
    None, ...): 16 or 64 where the dtype says so, else 32."""
    name = str(dtype or "").removeprefix("torch.").strip().lower()
    return FLOAT_BITS.get(name, DEFAULT_FLOAT_BITS)


def _lstm(config, width: int) -> Memory:
    return Memory(2 * config.hidden_size * config.num_hidden_layers * width, 0, recurrent_kind="rnn")


def _conv_attention(config, width: int) -> Memory:
    """Its convolutions' last inputs are a window (of `conv_kernel - 1` tokens), not a recurrent
    state: with attention's growing keys and values it is a transformer, as Zoology names it."""
    layers, hidden = config.num_hidden_layers, config.hidden_size
    return Memory(0, 2 * hidden * layers * width, windows=((hidden * layers * width, config.conv_kernel - 1),))


# Our model types that keep no cache object: their memory by hand, from the config and the width.
HAND_COUNTS: dict[str, Callable] = {"copy_tasks_lstm": _lstm, "copy_tasks_conv_attention": _conv_attention}


def hand_count(config, dtype) -> Memory | None:
    """The memory of a model of a type in `HAND_COUNTS`, else None."""
    count = HAND_COUNTS.get(getattr(config, "model_type", None))
    return None if count is None else count(config, float_bits(dtype))


def memory_of(lm) -> Memory | None:
    """The memory of the live model lm-eval runs (module docstring), or None where it cannot be
    had (a backend without the model in this process, a model whose cache cannot be read)."""
    model = unwrap_model(lm)
    own = getattr(model, "state_bits", None)
    if isinstance(own, int) and not isinstance(own, bool):  # an analytic model's own: what grows too, if it says
        return Memory(own, getattr(model, "state_bits_per_token", 0))
    config = hf_config(model)
    weights = getattr(model, "model", None)
    if config is None or weights is None or not hasattr(weights, "forward"):
        return None
    counted = hand_count(config, getattr(weights, "dtype", None))
    if counted is not None:
        return counted
    if not hasattr(weights, MEASURED):
        setattr(weights, MEASURED, measure_memory(weights))
    return getattr(weights, MEASURED)


def architecture_label(memory: Memory | None, model_type: str | None, positions: str | None) -> str | None:
    """The architecture column: the memory's label (`Memory.label`), a transformer's with its
    position scheme where the run recorded one (our trained transformers); None where nothing
    was measured (the leaderboard then reads the `model_type`)."""
    if memory is None:
        return None
    label = memory.label
    return f"{label} ({positions})" if label == TRANSFORMER and positions else label
