"""Hard-ALiBi: the paper's headline transformer, as a model type of its own.

A GPT-NeoX without rotary embeddings in which, in every layer, head h < M sees only the keys
at distances 0 to h before it (query i, key j: 0 <= i - j <= h), and the other heads see every
earlier key with no position information (NoPE). The paper masks M = 8 of 16 heads; here M
is `num_masked_heads` in the config.

It runs as transformers' own GPT-NeoX code with one attention function of ours. Where every
query attends from its own position over the keys before it with no padding (training on packed
rows, scoring a row alone) the windowed heads attend over their window only (`windowed_attention`,
a few keys a query) and the others through SDPA's causal kernel, both as cheap as a plain
transformer's; otherwise (padding, a cache) it adds the band to the attention mask it hands
transformers' SDPA attention. The two give the same outputs (tested). The saved config names
the model type `copy_tasks_hard_alibi`, not `gpt_neox`: transformers does not save the
attention implementation in `config.json`, so a checkpoint that said `gpt_neox` would load,
without our code, as a plain NoPE model and score as one. Under its own type a load without
`register()` fails, naming the unknown type; the start-up hook (`copy_tasks._autoregister`) registers
it whenever lm-eval's `hf` backend is imported.

    >>> import torch
    >>> bias = hard_alibi_bias(num_heads=3, masked_heads=2, query_length=3, key_length=3, dtype=torch.float32)
    >>> (bias[:, -1] == 0).int().tolist()  # what the last query may see, head by head
    [[0, 0, 1], [0, 1, 1], [1, 1, 1]]
"""

from __future__ import annotations

import torch
from transformers import AttentionInterface, GPTNeoXConfig, GPTNeoXForCausalLM
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

MODEL_TYPE = "copy_tasks_hard_alibi"
ATTENTION = "copy_tasks_hard_alibi_sdpa"


def hard_alibi_bias(num_heads: int, masked_heads: int, query_length: int, key_length: int,
                    dtype: torch.dtype, device=None) -> torch.Tensor:
    """An additive bias (heads, queries, keys): 0 where a head may look, the dtype's minimum
    beyond a masked head's window. The queries are the last `query_length` of the keys' positions
    (a decoding step attends from the newest position); causality is left to the mask."""
    queries = torch.arange(key_length - query_length, key_length, device=device)[:, None]
    distance = queries - torch.arange(key_length, device=device)[None, :]
    windows = torch.arange(num_heads, device=device)[:, None, None]
    blocked = (windows < masked_heads) & (distance[None] > windows)
    return torch.zeros(blocked.shape, dtype=dtype, device=device).masked_fill(blocked, torch.finfo(dtype).min)


def banded_mask(bias: torch.Tensor, attention_mask: torch.Tensor | None) -> torch.Tensor:
    """The additive mask (batch or 1, heads, queries, keys) of the band `bias` (`hard_alibi_bias`,
    with a batch axis) and transformers' mask: a boolean one (True: may look), an additive one,
    or None for plain causal attention (the queries the last of the keys).

    >>> bias = hard_alibi_bias(2, 1, 3, 3, torch.float32)[None]
    >>> (banded_mask(bias, None)[0, :, -1] == 0).int().tolist()
    [[0, 0, 1], [1, 1, 1]]
    """
    lowest = torch.finfo(bias.dtype).min
    if attention_mask is None:
        queries, keys = bias.shape[-2:]
        causal = torch.ones(queries, keys, dtype=torch.bool, device=bias.device).tril(keys - queries)
        return bias.masked_fill(~causal, lowest)
    if attention_mask.dtype == torch.bool:
        return bias.masked_fill(~attention_mask, lowest)
    return (bias + attention_mask.to(bias.dtype)).clamp(min=lowest)


def windowed_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, scaling: float) -> torch.Tensor:
    """Each head h of (batch, heads, positions, head size) attending from every position over the
    keys 0 to h before it (Hard-ALiBi's windowed heads, `hard_alibi_bias`), computed over the
    windows alone: O(positions x heads) scores, not O(positions^2).

    >>> q, k, v = torch.randn(3, 1, 2, 5, 4).unbind(0)
    >>> out = windowed_attention(q, k, v, 0.5)
    >>> bool(torch.allclose(out[0, 0], v[0, 0]))  # head 0 sees each position itself alone
    True
    >>> bool(torch.allclose(out[0, 1, 0], v[0, 1, 0])), bool(torch.allclose(out[0, 1, 1], v[0, 1, 1]))  # head 1
    (True, False)
    """
    heads, positions = query.shape[1], query.shape[2]
    before = torch.nn.functional.pad(key, (0, 0, heads - 1, 0)).unfold(2, heads, 1)  # (b, h, t, d, window)
    values = torch.nn.functional.pad(value, (0, 0, heads - 1, 0)).unfold(2, heads, 1)
    scores = torch.einsum("bhtd,bhtdw->bhtw", query, before) * scaling
    distance = torch.arange(heads - 1, -1, -1, device=query.device)  # window slot w holds the key heads-1-w back
    reach = torch.arange(heads, device=query.device)[:, None, None]
    position = torch.arange(positions, device=query.device)[None, :, None]
    blocked = (distance > reach) | (distance > position)  # beyond the head's window, or before the row's start
    weights = scores.masked_fill(blocked, torch.finfo(scores.dtype).min).softmax(dim=-1)
    return torch.einsum("bhtw,bhtdw->bhtd", weights, values)


def hard_alibi_attention(module, query, key, value, attention_mask, **kwargs):
    """transformers' SDPA attention with the Hard-ALiBi band of `module.config`: for a causal pass
    with no padding mask, no cache and no dropout, the windowed heads over their windows
    (`windowed_attention`) and the others through SDPA's causal kernel; else the band in the
    mask (a mask, not SDPA's `position_bias`, which transformers 5.0 does not take)."""
    masked = module.config.num_masked_heads
    if attention_mask is None and query.shape[2] == key.shape[2] > 1 and not kwargs.get("dropout"):
        kwargs.pop("is_causal", None)
        free, _ = sdpa_attention_forward(module, query[:, masked:], key[:, masked:], value[:, masked:], None,
                                         is_causal=True, **kwargs)
        scaling = kwargs.get("scaling") or query.shape[-1] ** -0.5
        windowed = windowed_attention(query[:, :masked], key[:, :masked], value[:, :masked], scaling)
        return torch.cat([windowed.transpose(1, 2), free], dim=2).contiguous(), None
    bias = hard_alibi_bias(query.shape[1], module.config.num_masked_heads, query.shape[2], key.shape[2],
                           query.dtype, query.device)
    kwargs.pop("is_causal", None)  # the mask is given: never SDPA's own causal shortcut
    return sdpa_attention_forward(module, query, key, value, banded_mask(bias[None], attention_mask), **kwargs)


AttentionInterface.register(ATTENTION, hard_alibi_attention)
AttentionMaskInterface.register(ATTENTION, sdpa_mask)


class HardAlibiConfig(GPTNeoXConfig):
    """GPT-NeoX with no rotary embeddings and `num_masked_heads` hard-windowed heads per layer."""

    model_type = MODEL_TYPE

    def __init__(self, num_masked_heads: int = 1, **kwargs):
        self.num_masked_heads = num_masked_heads
        kwargs["rope_parameters"] = {**(kwargs.get("rope_parameters") or {}), "rope_type": "default",
                                     "partial_rotary_factor": 0.0}
        kwargs.pop("rotary_pct", None)
        super().__init__(**kwargs)
        if not 0 <= num_masked_heads <= self.num_attention_heads:
            raise ValueError(f"num_masked_heads={num_masked_heads}: allowed are 0 to num_attention_heads "
                             f"({self.num_attention_heads})")


class HardAlibiForCausalLM(GPTNeoXForCausalLM):
    """The model; it always runs the Hard-ALiBi attention, and refuses to run any other."""

    config_class = HardAlibiConfig

    def _check_and_adjust_attn_implementation(self, attn_implementation, is_init_check=False, **kwargs):
        if attn_implementation not in (None, ATTENTION):
            raise ValueError(f"attn_implementation={attn_implementation!r}: a {MODEL_TYPE} model runs only its "
                             f"own attention ({ATTENTION}); leave attn_implementation unset")
        return ATTENTION
