"""Hard-ALiBi (`copy_tasks.models.hard_alibi`): each head sees only its window, with and without a
cache, and refuses another attention."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from trained_models import QUICK

from copy_tasks.experiments.architectures import build_model
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
