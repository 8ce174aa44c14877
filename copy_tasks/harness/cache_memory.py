"""What a model keeps of a prompt, measured from its own cache: the memory axis the field reads
(Zoology, Based: recall against the bits a model carries; attention at its keys and values).

`measure_memory(model)` runs the model's forward pass with a cache on prompts of `LENGTHS`
tokens and counts the bits of every floating-point tensor its cache holds (keys and values,
recurrent states, convolution inputs), each at the width it is stored in (bfloat16: 16 bits), layer
by layer: what grows from one length to the next grows with the prompt, per token; the rest is
fixed. A layer that keeps only a window of keys and values (sliding-window attention) grows until
its window is full and then stays there, so it counts in full among what is fixed. Nothing here
knows an architecture: a new transformers model type gets its numbers from its cache object.

- `recurrent_bits`: recurrent states and convolution inputs (what an SSM or RNN carries);
- `window_bits`: windowed attention's keys and values, the window full;
- `bits_per_token`: what full attention keeps per token of the prompt.

The leaderboard's `state_bits` is what does not grow (recurrent and windowed), and
`state_bits_per_token` what does; the architecture label follows from them (`Memory.label`):
`transformer` (it grows, and nothing recurrent is kept; windowed layers beside full ones are
still a transformer, as Gemma 3), `ssm` (only a recurrent state), `hybrid` (a recurrent state and
attention), `bounded attention` (only windows: Mistral with every layer sliding).

    >>> memory = Memory(recurrent_bits=0, bits_per_token=1024)
    >>> memory.label, memory.state_bits, memory.bits_at(100)
    ('transformer', 0, 102400)
    >>> gemma = Memory(recurrent_bits=0, bits_per_token=1024, windows=((1024, 7),))  # a window of 7 tokens
    >>> gemma.state_bits, gemma.bits_at(3), gemma.bits_at(100), gemma.label
    (7168, 6144, 109568, 'transformer')
    >>> Memory(28672, 1024).label, Memory(28672, 0).label, Memory(0, 0, ((1024, 30),)).label
    ('hybrid', 'ssm', 'bounded attention')
"""

from __future__ import annotations

from dataclasses import dataclass

LENGTHS = (2, 3)  # prompt tokens of the two passes: shorter than any window, longer than nothing
TRANSFORMER, HYBRID, BOUNDED = "transformer", "hybrid", "bounded attention"


@dataclass(frozen=True)
class Memory:
    """The bits a model keeps of a prompt, by kind (module docstring); `windows`: each windowed
    layer's (bits a token, tokens it keeps once full)."""

    recurrent_bits: int
    bits_per_token: int
    windows: tuple[tuple[int, int], ...] = ()
    recurrent_kind: str = "ssm"  # the label of a model that keeps only a recurrent state (our LSTM: `rnn`)

    @property
    def window_bits(self) -> int:
        """Windowed attention's keys and values, every window full."""
        return sum(growth * kept for growth, kept in self.windows)

    @property
    def state_bits(self) -> int:
        """What does not grow with the prompt: recurrent states and full windows."""
        return self.recurrent_bits + self.window_bits

    def bits_at(self, tokens: int) -> int:
        """What it keeps after a prompt of `tokens` tokens."""
        return (self.recurrent_bits + self.bits_per_token * tokens
                + sum(growth * min(tokens, kept) for growth, kept in self.windows))

    @property
    def label(self) -> str:
        if self.bits_per_token:
            return HYBRID if self.recurrent_bits else TRANSFORMER
        if self.recurrent_bits:
            return HYBRID if self.windows else self.recurrent_kind
        return BOUNDED if self.windows else "unknown"


def float_tensors(value, seen: set[int] | None = None, depth: int = 0):
    """The floating-point tensors reachable from a cache object (its attributes, lists, tuples
    and dicts), each once; integer bookkeeping (lengths, positions) is not memory of the prompt."""
    import torch

    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        if value.is_floating_point() and id(value) not in seen:
            seen.add(id(value))
            yield value
    elif depth < 6 and isinstance(value, (list, tuple)):
        for item in value:
            yield from float_tensors(item, seen, depth + 1)
    elif depth < 6 and isinstance(value, dict):
        for item in value.values():
            yield from float_tensors(item, seen, depth + 1)
    elif depth < 6 and hasattr(value, "__dict__") and not isinstance(value, torch.nn.Module):
        yield from float_tensors(vars(value), seen, depth + 1)


def bits(value) -> int:
    return sum(tensor.numel() * tensor.element_size() * 8 for tensor in float_tensors(value))


def cache_layers(model, tokens: int) -> list | None:
    """The cache after a forward pass over a prompt of `tokens` tokens, split in its layers where
    it has them, with the tensors the model's modules hold beyond their weights (a state kept in
    the layer itself, as RecurrentGemma's); None where there is neither."""
    import torch

    input_ids = torch.arange(1, tokens + 1, device=model.device)[None, :] % max(2, model.config.get_text_config()
                                                                                 .vocab_size)
    with torch.no_grad():
        output = model(input_ids=input_ids, use_cache=True)
        cache = next((getattr(output, name) for name in ("past_key_values", "cache_params", "state")
                      if getattr(output, name, None) is not None), None)
        if cache is None:  # a model that does not return its cache: given one (RecurrentGemma's attention)
            from transformers import DynamicCache

            cache = DynamicCache(config=model.config)
            model(input_ids=input_ids, use_cache=True, past_key_values=cache)
    layers = getattr(cache, "layers", None)
    parts = list(layers) if layers else [cache]
    held = [state for state in map(module_state, model.modules()) if state]
    return [part for part in parts + held if bits(part)] or None


def module_state(module) -> dict:
    """The tensors a module holds beyond its parameters and buffers (a cache kept in the layer)."""
    import torch

    return {name: value for name, value in vars(module).items() if isinstance(value, torch.Tensor)}


def window_of(layer) -> int | None:
    """The tokens a windowed layer keeps once its window is full (transformers' dynamic sliding
    layers keep `sliding_window - 1`); None for a layer without a window."""
    window = getattr(layer, "sliding_window", None)
    return window - 1 if isinstance(window, int) and window > 0 else None


def measure_memory(model) -> Memory | None:
    """The model's `Memory`, measured from its cache at `LENGTHS`; None where it keeps no cache
    this can read (no cache object, a forward that refuses `use_cache`, or parts that do not grow
    by whole bits a token)."""
    import torch

    short, long = LENGTHS
    try:
        was_training = model.training
        model.eval()
        setup = getattr(model, "_setup_cache", None)
        if callable(setup):  # RecurrentGemma allocates its window and states here
            setup(model.config, 1, model.device, model.dtype)
        before, after = cache_layers(model, short), cache_layers(model, long)
    except (TypeError, ValueError, RuntimeError, AttributeError, NotImplementedError, torch.cuda.OutOfMemoryError):
        return None
    finally:
        model.train(was_training)
    if not before or not after or len(before) != len(after):
        return None
    recurrent, per_token, windows = 0, 0, []
    for first, second in zip(before, after):
        grown = bits(second) - bits(first)
        if grown % (long - short):
            return None
        growth = grown // (long - short)
        recurrent += bits(first) - growth * short
        kept = window_of(second)
        if growth and kept is not None:
            windows.append((growth, kept))
        else:
            per_token += growth
    return Memory(recurrent, per_token, tuple(windows))
