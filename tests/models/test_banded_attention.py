"""Banded SDPA gives sliding-window layers only their band of keys and changes no result."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM

from copy_tasks.models import banded_attention
from copy_tasks.models.banded_attention import BANDED_SDPA, band_blocks, use_banded_attention


def sliding_mask(length: int, window: int) -> torch.Tensor:
    query, key = torch.arange(length)[:, None], torch.arange(length)[None, :]
    return ((key <= query) & (query - key < window))[None, None]


def test_blocks_of_a_sliding_mask_cover_each_window():
    # Queries 0-3 see keys 0-3; queries 4-7 see keys 2-7 (window 2 reaches back to key 3 for
    # query 4; one more key is read for models that count the window's edge the other way).
    assert band_blocks(sliding_mask(8, 2), 8, window=2, block=4) == [
        (slice(0, 4), slice(0, 4)), (slice(4, 8), slice(2, 8))]


@pytest.mark.parametrize("case", ["full causal", "key outside window", "future key", "float mask",
                                  "no window", "one block"])
def test_blocks_refused_where_banding_would_drop_a_key(case):
    mask, window, length = sliding_mask(8, 2), 2, 8
    if case == "full causal":
        mask = sliding_mask(8, 8)
    elif case == "key outside window":
        mask = mask.clone()
        mask[0, 0, 7, 0] = True
    elif case == "future key":
        mask = mask.clone()
        mask[0, 0, 1, 6] = True
    elif case == "float mask":
        mask = torch.where(mask, 0.0, float("-inf"))
    elif case == "no window":
        window = None
    else:
        length = 4
        mask = sliding_mask(4, 2)
    assert band_blocks(mask, length, window=window, block=4) is None


@pytest.fixture
def gemma_pair(tiny_models, monkeypatch):
    """(SDPA model, banded model, query lengths of the SDPA calls) for the tiny Gemma 3 (window 16),
    in blocks of 8 queries."""
    monkeypatch.setattr(banded_attention, "QUERY_BLOCK", 8)
    calls = []
    sdpa = banded_attention.sdpa_attention_forward
    monkeypatch.setattr(banded_attention, "sdpa_attention_forward",
                        lambda *args, **kwargs: calls.append(args[1].shape[2]) or sdpa(*args, **kwargs))
    plain = AutoModelForCausalLM.from_pretrained(tiny_models["gemma3"]).eval()
    banded = AutoModelForCausalLM.from_pretrained(tiny_models["gemma3"]).eval()
    assert use_banded_attention(banded) and banded.config._attn_implementation == BANDED_SDPA
    return plain, banded, calls


def test_same_logits_and_banded_path_taken(gemma_pair):
    plain, banded, calls = gemma_pair
    tokens = torch.randint(0, plain.config.vocab_size, (1, 100), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected, got = plain(tokens).logits, banded(tokens).logits
    assert torch.allclose(got, expected, atol=1e-5)
    assert torch.equal(got.argmax(-1), expected.argmax(-1))
    # Two sliding layers in 13 blocks of <= 8 queries each, the full-attention layer in one call.
    assert calls == [8] * 12 + [4] + [8] * 12 + [4] + [100]


def test_same_logits_with_left_padding(gemma_pair):
    plain, banded, calls = gemma_pair
    tokens = torch.randint(0, plain.config.vocab_size, (2, 60), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(tokens)
    mask[1, :25] = 0
    with torch.no_grad():
        expected = plain(tokens, attention_mask=mask).logits
        got = banded(tokens, attention_mask=mask).logits
    assert torch.allclose(got[0], expected[0], atol=1e-5)
    assert torch.allclose(got[1, 25:], expected[1, 25:], atol=1e-5)
    assert len(calls) > len(plain.config.layer_types)


def test_same_greedy_generation_with_a_cache(gemma_pair):
    plain, banded, calls = gemma_pair
    prompt = torch.randint(0, plain.config.vocab_size, (1, 40), generator=torch.Generator().manual_seed(2))
    settings = dict(max_new_tokens=30, do_sample=False, pad_token_id=plain.config.pad_token_id)
    expected = plain.generate(prompt, **settings)
    got = banded.generate(prompt, **settings)
    assert torch.equal(got, expected)
    assert 1 in calls  # decoding steps (one query) go to SDPA unchanged


def test_models_without_a_sliding_window_keep_their_attention(tiny_models):
    for architecture in ("gpt_neox", "mamba"):
        model = AutoModelForCausalLM.from_pretrained(tiny_models[architecture])
        before = model.config._attn_implementation
        assert not use_banded_attention(model)
        assert model.config._attn_implementation == before
