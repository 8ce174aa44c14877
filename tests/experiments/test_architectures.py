"""The architectures `copy-tasks train` builds (`copy_tasks.experiments.architectures`): the
paper's six about one size, positions as named, state bits by hand, heads tied where the recipe
says."""

from __future__ import annotations

from dataclasses import replace

import torch

from copy_tasks.experiments.architectures import build_model, parameters, state_bits
from copy_tasks.experiments.recipes import MAMBA2_STATES, PAPER_ARCHITECTURES, RECIPES
from copy_tasks.experiments.training_data import char_tokenizer

QUICK = RECIPES["quick"]


def test_the_six_architectures_have_about_one_size():
    counts = {name: parameters(build_model(name, RECIPES["full"], char_tokenizer(), 0)) for name in PAPER_ARCHITECTURES}
    assert max(counts.values()) / min(counts.values()) < 1.05, counts


def test_nope_has_no_position_information_and_rope_has():
    """One layer, no positions: the last output is a function of the set of earlier tokens."""
    recipe = replace(QUICK, transformer_layers=1, hidden=64)
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7]])
    permuted = torch.tensor([[20, 14, 31, 9, 5, 7]])  # the earlier tokens reordered, the last kept
    for architecture, invariant in (("transformer-nope", True), ("transformer-rope", False)):
        model = build_model(architecture, recipe, char_tokenizer(), 0).eval()
        with torch.no_grad():
            same = torch.allclose(model(tokens).logits[0, -1], model(permuted).logits[0, -1], atol=1e-5)
        assert same == invariant, architecture


def test_state_bits_hand_worked():
    mamba = build_model("mamba2", QUICK, char_tokenizer(), 0)
    config = mamba.config  # 2 layers, 2 heads of width 32, state 64, conv kernel 4, 64 + 128 conv channels
    assert (config.num_hidden_layers, config.num_heads, config.head_dim, config.state_size) == (2, 2, 32, 64)
    assert state_bits(mamba) == 32 * (2 * 2 * 32 * 64 + 2 * 3 * (2 * 32 + 2 * 64)) == 299_008
    assert state_bits(build_model("lstm", QUICK, char_tokenizer(), 0)) == 32 * 2 * 2 * 32  # h and c, 2 layers of 32
    assert state_bits(build_model("transformer-hard-alibi", QUICK, char_tokenizer(), 0)) is None


def test_mamba2s_state_size_is_its_names_and_the_recipe_ties_the_heads_it_names():
    recipe = replace(QUICK, tied_heads=("mamba2-state8",))
    for name, state in MAMBA2_STATES.items():
        model = build_model(name, recipe, char_tokenizer(), 0)
        assert model.config.state_size == state
        assert (model.lm_head.weight is model.backbone.embeddings.weight) == (name == "mamba2-state8")
    rope = build_model("transformer-rope", recipe, char_tokenizer(), 0)
    assert rope.get_output_embeddings().weight is not rope.get_input_embeddings().weight


def test_conv_then_attention_is_tied_and_single_headed_as_zoologys():
    model = build_model("transformer-conv", QUICK, char_tokenizer(), 0)
    assert model.config.num_attention_heads == 1 and model.config.conv_kernel == 3
    assert model.head.weight is model.embed.weight
