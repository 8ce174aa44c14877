"""Sliding-window attention that computes only the band of keys each query can see.

transformers runs a sliding-window layer (Gemma 3: 15 of its 18 layers, window 512) through
PyTorch's `scaled_dot_product_attention` with a full `n x n` boolean mask, so a prompt of
3,000 tokens costs as much in those layers as full attention, although each query sees at most
512 keys. This attention function cuts the queries into blocks and gives each block only the
keys its rows of the mask can reach, with the same mask sliced to them, calling transformers'
own SDPA function on each block. The result is the same attention (masked keys get zero weight
either way); only the floating-point summation order differs.

It takes that path only where it is exact: a layer with a sliding window, a whole sequence
(queries = keys, no cache) and a mask whose rows have no allowed key outside their block's band.
Everything else (full-attention layers, decoding steps, other masks) goes to SDPA unchanged.

    >>> from transformers import AutoModelForCausalLM                   # doctest: +SKIP
    >>> model = AutoModelForCausalLM.from_pretrained(folder)            # doctest: +SKIP
    >>> use_banded_attention(model)                                     # doctest: +SKIP
    True
"""

from __future__ import annotations

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

BANDED_SDPA = "copy_tasks_banded_sdpa"
# Queries per block. Each block reads up to this many keys beyond its window; PyTorch's CPU
# flash kernel also walks keys in blocks of 512, so with Gemma 3's window of 512 every key
# slice starts on one of its block edges.
QUERY_BLOCK = 512


def band_blocks(mask: torch.Tensor | None, length: int, window: int | None, block: int):
    """(query slice, key slice) per block of `block` queries, or None where banding isn't exact.

    The key slice of queries [s, e) is [s - window, e): it covers a causal window of `window`
    keys whichever way a model counts the window's edge; the mask must allow nothing outside it.

    >>> n = 6
    >>> q, k = torch.arange(n)[:, None], torch.arange(n)[None, :]
    >>> band_blocks(((k <= q) & (q - k < 2))[None, None], n, window=2, block=3)
    [(slice(0, 3, None), slice(0, 3, None)), (slice(3, 6, None), slice(1, 6, None))]
    >>> band_blocks((k <= q)[None, None], n, window=2, block=3) is None  # a full causal mask
    True
    """
    if window is None or mask is None or mask.dtype != torch.bool or length <= block:
        return None
    if mask.shape[-2:] != (length, length):
        return None
    blocks = []
    for start in range(0, length, block):
        end = min(length, start + block)
        first_key = max(0, start - window)
        rows = mask[..., start:end, :]
        if rows[..., :first_key].any() or rows[..., end:].any():
            return None
        blocks.append((slice(start, end), slice(first_key, end)))
    return blocks


def banded_sdpa_attention(module, query, key, value, attention_mask, sliding_window=None, **kwargs):
    """transformers' SDPA attention, run block by block over the sliding window's band when exact."""
    blocks = None
    if query.shape[2] == key.shape[2]:
        blocks = band_blocks(attention_mask, query.shape[2], sliding_window, QUERY_BLOCK)
    if blocks is None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)
    outputs = [
        sdpa_attention_forward(module, query[:, :, rows], key[:, :, keys], value[:, :, keys],
                               attention_mask[:, :, rows, keys], **kwargs)[0]
        for rows, keys in blocks
    ]
    return torch.cat(outputs, dim=1), None


AttentionInterface.register(BANDED_SDPA, banded_sdpa_attention)
AttentionMaskInterface.register(BANDED_SDPA, sdpa_mask)


def use_banded_attention(model) -> bool:
    """Switch a sliding-window model that runs SDPA to the banded SDPA; True if it now uses it."""
    config = model.config
    can_switch = getattr(model, "_can_set_attn_implementation", lambda: False)
    if getattr(config, "sliding_window", None) is None or config._attn_implementation != "sdpa" or not can_switch():
        return False
    model.set_attn_implementation(BANDED_SDPA)
    return model.config._attn_implementation == BANDED_SDPA
