"""What a model keeps of a prompt, measured from its own cache (`copy_tasks.harness.cache_memory`):
held against hand counts for Mamba, Mamba-2, Jamba and Gemma 3, at each tensor's stored width,
windows included (issue 53)."""

from __future__ import annotations

import torch
import transformers
from packaging.version import Version

from copy_tasks.harness.cache_memory import Memory, cache_layers, measure_memory
from copy_tasks.harness.state_size import architecture_label

SMALL = {"vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 1, "intermediate_size": 64, "head_dim": 16}


def built(model_type: str, dtype=torch.float32, **settings):
    config = transformers.AutoConfig.for_model(model_type, **{**SMALL, **settings})
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(config).to(dtype).eval()


def tiny_mamba(dtype=torch.float32):  # 2 layers, 64 inner channels, state 4, convolution kernel 3
    return built("mamba", dtype, state_size=4, expand=2, conv_kernel=3)


def tiny_mamba2(dtype=torch.float32):  # 2 layers, 4 heads of 16, state 8, 1 group, kernel 3
    return built("mamba2", dtype, state_size=8, expand=2, head_dim=16, num_heads=4, n_groups=1, conv_kernel=3)


def test_mamba_keeps_its_state_and_its_convolutions_whole_window_by_hand():
    """Per layer: 64 channels x state 4 (the SSM) and 64 channels x kernel 3 (transformers keeps
    `conv_kernel` inputs, not `conv_kernel - 1`); nothing grows."""
    assert measure_memory(tiny_mamba()) == Memory(2 * (64 * 4 + 64 * 3) * 32, 0)


def ssm_state_widths() -> set[int]:
    """The bits an element of Mamba-2's SSM state is stored in under bfloat16 weights: transformers
    5.20 and later keep the scan's float32 (seen on 5.20 and 5.25), 5.0 the weights' 16 bits; the
    release between that changed it is not pinned down."""
    version = Version(transformers.__version__)
    return {32} if version >= Version("5.20") else {16} if version < Version("5.1") else {16, 32}


def test_mamba2_by_hand_and_at_each_parts_own_width():
    """Per layer: 4 heads x 16 x state 8 (the SSM) and (64 + 2 x 1 x 8) channels x kernel 3;
    under bfloat16 weights the convolution inputs are 16 bits and the SSM state is counted at the
    width transformers stores it in."""
    ssm, conv = 2 * 4 * 16 * 8, 2 * (64 + 2 * 8) * 3
    assert measure_memory(tiny_mamba2()) == Memory((ssm + conv) * 32, 0)
    assert measure_memory(tiny_mamba2(torch.bfloat16)) in {Memory(ssm * width + conv * 16, 0)
                                                            for width in ssm_state_widths()}


def test_jamba_keeps_a_mamba_state_and_attentions_keys_and_values():
    """Layer 0 Mamba (64 inner channels: state 4 and kernel 4), layer 1 attention (1 key-value
    head of 16: a key and a value a token): a hybrid."""
    model = built("jamba", attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2, expert_layer_offset=1,
                  mamba_d_state=4, mamba_d_conv=4, mamba_expand=2, use_mamba_kernels=False, num_experts=2)
    memory = measure_memory(model)
    assert memory == Memory((64 * 4 + 64 * 4) * 32, 2 * 16 * 32)
    assert architecture_label(memory, "jamba", None) == "hybrid"


def test_gemma3_grows_in_its_full_layer_and_keeps_a_full_window_in_its_sliding_one():
    """1 key-value head of 16 in each layer: the full layer grows by a key and a value a token;
    the sliding layer (window 8) keeps 7 tokens once full. Measured against a prompt longer than
    the window: what the cache then holds is what the memory says."""
    model = built("gemma3_text", sliding_window=8, layer_types=["sliding_attention", "full_attention"])
    memory = measure_memory(model)
    assert memory == Memory(0, 2 * 16 * 32, windows=((2 * 16 * 32, 7),))
    assert memory.state_bits == 7 * 1024 and architecture_label(memory, "gemma3_text", None) == "transformer"
    for tokens in (5, 20):
        layers = cache_layers(model, tokens)
        held = sum(tensor.numel() * 32 for layer in layers for tensor in (layer.keys, layer.values))
        assert held == memory.bits_at(tokens)


def test_every_layer_sliding_is_bounded_attention():
    model = built("mistral", sliding_window=8)
    memory = measure_memory(model)
    assert (memory.state_bits, memory.bits_per_token, memory.label) == (2 * 7 * 2 * 16 * 32, 0, "bounded attention")
