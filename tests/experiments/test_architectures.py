"""The architectures `copy-tasks train` builds (`copy_tasks.experiments.architectures`): the
paper's six about one size, positions as named, state bits by hand, heads tied where the recipe
says."""

from __future__ import annotations

from dataclasses import replace

import torch

from copy_tasks.experiments.architectures import build_model, memory, parameters
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


def test_memory_hand_worked():
    """Mamba-2 (2 layers, 2 heads of 32, state 64; a convolution of kernel 4 over 64 + 2 x 64
    channels, all 4 inputs kept) measured from its cache; the LSTM's h and c by hand; a
    transformer keeps a key and a value a layer a token."""
    mamba = build_model("mamba2", QUICK, char_tokenizer(), 0)
    config = mamba.config
    assert (config.num_hidden_layers, config.num_heads, config.head_dim, config.state_size) == (2, 2, 32, 64)
    assert memory(mamba).state_bits == 32 * (2 * 2 * 32 * 64 + 2 * 4 * (2 * 32 + 2 * 64)) == 311_296
    assert memory(build_model("lstm", QUICK, char_tokenizer(), 0)).state_bits == 32 * 2 * 2 * 32  # 2 layers of 32
    hard_alibi = memory(build_model("transformer-hard-alibi", QUICK, char_tokenizer(), 0))
    assert (hard_alibi.state_bits, hard_alibi.bits_per_token) == (0, 32 * 2 * 2 * 32)
    conv = memory(build_model("transformer-conv", QUICK, char_tokenizer(), 0))
    assert (conv.state_bits, conv.bits_per_token, conv.label) == (32 * 2 * 2 * 32, 32 * 2 * 2 * 32, "transformer")


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
