"""Sliding-window layers keep only their window of a prompt in the cache, and generate the same."""

from __future__ import annotations

import inspect

import torch
from transformers import AutoModelForCausalLM, DynamicCache

from copy_tasks.experiments.tiny_models import SLIDING_WINDOW
from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM
from copy_tasks.models.sliding_cache import keep_only_windows

PROMPT_TOKENS = 40  # longer than the tiny Gemma 3's window of 16


def prompt_cache(model) -> DynamicCache:
    """The cache a generation's prompt pass leaves: two rows of 40 tokens."""
    cache = DynamicCache(config=model.config)
    name = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"  # 5.25, 5.0
    with torch.no_grad():
        model(torch.arange(10, 10 + 2 * PROMPT_TOKENS).reshape(2, PROMPT_TOKENS), use_cache=True, **{name: cache})
    return cache


def stored_tokens(tensor: torch.Tensor) -> int:
    """How many tokens' keys (or values) of 2 rows the memory behind `tensor` holds."""
    return tensor.untyped_storage().nbytes() // (tensor.element_size() * 2 * tensor.shape[1] * tensor.shape[-1])


def test_hf_fast_keeps_each_sliding_layers_window_of_the_prompt_not_the_prompt(tiny_models):
    """Issue 41, the main job's peak: after Gemma 3's prompt pass every sliding layer kept the
    whole prompt's keys and values behind its window (8 rows of 1,600 tokens: 0.48 GB, not 0.2)."""
    model = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gemma3"]), device="cpu", batch_size=2).model
    cache = prompt_cache(model)
    kinds = [(layer.is_sliding, layer.keys.shape[2], stored_tokens(layer.keys), stored_tokens(layer.values))
             for layer in cache.layers]
    window = SLIDING_WINDOW - 1
    assert kinds == [(True, window, window, window)] * 2 + [(False, PROMPT_TOKENS, PROMPT_TOKENS, PROMPT_TOKENS)]


def test_generation_with_compacted_windows_is_the_same(tiny_models):
    plain = AutoModelForCausalLM.from_pretrained(tiny_models["gemma3"]).eval()
    compact = AutoModelForCausalLM.from_pretrained(tiny_models["gemma3"]).eval()
    assert keep_only_windows(compact) == 2 and keep_only_windows(plain.model.embed_tokens) == 0
    prompts = torch.arange(10, 10 + 2 * PROMPT_TOKENS).reshape(2, PROMPT_TOKENS)
    mask = torch.ones_like(prompts)
    mask[1, :5] = 0  # the second row left-padded, as lm-eval pads generation batches
    options = {"max_new_tokens": 30, "do_sample": False, "return_dict_in_generate": True, "output_logits": True}
    expected = plain.generate(input_ids=prompts, attention_mask=mask, **options)
    got = compact.generate(input_ids=prompts, attention_mask=mask, **options)
    assert torch.equal(got.sequences, expected.sequences)
    assert all(torch.equal(a, b) for a, b in zip(got.logits, expected.logits))
