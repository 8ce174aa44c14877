"""Hard-ALiBi (`copy_tasks.models.hard_alibi`): each head sees only its window, with and without a
cache, and refuses another attention."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from trained_models import QUICK

from copy_tasks.experiments.architectures import build_model
from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.training_data import char_tokenizer


@pytest.mark.filterwarnings("error::FutureWarning")  # transformers' deprecations (issue 44 finding 9)
def test_hard_alibi_heads_see_only_their_window_with_and_without_a_cache():
    """One layer, every head windowed (heads 0 and 1: 0 and 1 back): the last output depends on
    the last two tokens only, and decoding with a cache gives the full forward's logits."""
    recipe = replace(QUICK, transformer_layers=1, hidden=64, attention_heads=2, masked_heads=2)
    model = build_model("transformer-hard-alibi", recipe, char_tokenizer(), 0).eval()
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7]])
    far, near = tokens.clone(), tokens.clone()
    far[0, 3], near[0, 4] = 40, 40
    with torch.no_grad():
        last = model(tokens).logits[0, -1]
        assert torch.allclose(model(far).logits[0, -1], last, atol=1e-6)
        assert not torch.allclose(model(near).logits[0, -1], last, atol=1e-4)
        deep = build_model("transformer-hard-alibi", replace(QUICK, hidden=64, attention_heads=4, masked_heads=2),
                           char_tokenizer(), 0).eval()
        # generate's second step decodes one token against the cache of the first, and one full
        # forward pass over the same positions must give its logits. generate passes the cache
        # under the name the installed transformers takes (`past_key_values` in 5.0; `cache` later,
        # where the old name warns that 5.40 removes it), which a direct call would have to pick.
        decoded = deep.generate(tokens[:, :4], max_new_tokens=2, min_new_tokens=2, do_sample=False, use_cache=True,
                                output_logits=True, return_dict_in_generate=True)
        full = deep(decoded.sequences[:, :5]).logits
        assert torch.allclose(decoded.logits[1][0], full[0, -1], atol=1e-5)


def test_hard_alibi_refuses_another_attention(trained):
    from transformers import AutoModelForCausalLM

    with pytest.raises(ValueError, match="runs only its own attention"):
        AutoModelForCausalLM.from_pretrained(trained[0] / "copy" / "transformer-hard-alibi" / "seed-0" / "final",
                                             attn_implementation="sdpa")


def attention_of(masked_heads: int):
    """Hard-ALiBi's attention function on a stand-in module (what GPT-NeoX's layer passes it)."""
    from types import SimpleNamespace

    from copy_tasks.models.hard_alibi import hard_alibi_attention

    module = SimpleNamespace(config=SimpleNamespace(num_masked_heads=masked_heads), is_causal=True, training=False)
    return lambda q, k, v, mask: hard_alibi_attention(module, q, k, v, mask, scaling=0.25, dropout=0.0)[0]


@pytest.mark.parametrize("padded", [False, True], ids=["windowed heads over their windows", "the band in the mask"])
def test_the_authors_heads_8_of_16_see_1_to_8_keys_and_the_others_every_key(padded):
    """Issue 42: the authors' Hard-ALiBi, 16 heads a layer, head h < 8 seeing itself and the h
    keys before it (windows 1 to 8), the other 8 every earlier key. Changing the key and value at
    distance d from the last query changes head h's output exactly when d <= h (masked heads), or
    always (the others); with and without a padding mask (the two code paths)."""
    attention = attention_of(8)
    heads, positions = 16, 12
    q, k, v = torch.randn(3, 1, heads, positions, 8, dtype=torch.float64).unbind(0)
    mask = torch.ones(1, 1, positions, positions, dtype=torch.bool).tril() if padded else None
    base = attention(q, k, v, mask)[0, -1]  # (heads, head size): the last position
    for distance in range(positions):
        moved_k, moved_v = k.clone(), v.clone()
        moved_k[..., positions - 1 - distance, :] += 1.0
        moved_v[..., positions - 1 - distance, :] += 1.0
        changed = ~torch.isclose(attention(q, moved_k, moved_v, mask)[0, -1], base, atol=1e-12).all(dim=-1)
        assert changed.tolist() == [distance <= head or head >= 8 for head in range(heads)], distance
    assert (RECIPES["full"].attention_heads, RECIPES["full"].masked_heads) == (16, 8)


def test_the_windowed_path_gives_the_masks_outputs_and_gradients():
    """Training on packed rows takes the windowed path (no mask); a padded batch the mask's: the
    same numbers, forward and backward."""
    attention = attention_of(3)
    q, k, v = torch.randn(3, 2, 5, 9, 4, dtype=torch.float64).unbind(0)
    causal = torch.ones(1, 1, 9, 9, dtype=torch.bool).tril()
    results = []
    for mask in (None, causal):
        leaves = [tensor.clone().requires_grad_() for tensor in (q, k, v)]
        out = attention(*leaves, mask)
        (out * torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        results.append((out.detach(), *(leaf.grad for leaf in leaves)))
    assert all(torch.allclose(fast, masked, atol=1e-10) for fast, masked in zip(*results))


def test_a_checkpoint_of_the_earlier_shape_loads_with_its_own_heads_and_windows(tmp_path):
    """The model type is unchanged: a checkpoint saved with 4 windowed heads of 8 (the recipe
    before the authors' 8 of 16) loads with its own config and gives the logits it gave."""
    from transformers import AutoModelForCausalLM

    earlier = replace(QUICK, hidden=64, attention_heads=8, masked_heads=4)
    model = build_model("transformer-hard-alibi", earlier, char_tokenizer(), 0).eval()
    model.save_pretrained(tmp_path)
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7, 12, 40, 41]])
    assert (loaded.config.num_attention_heads, loaded.config.num_masked_heads) == (8, 4)
    with torch.no_grad():
        assert torch.equal(loaded(tokens).logits, model(tokens).logits)
