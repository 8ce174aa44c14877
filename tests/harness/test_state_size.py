"""The bits of a fixed-size state (`copy_tasks.harness.state_size`): counted from real configs,
checked against the state the HF models really keep, and recorded for the live model a run has."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
import transformers

from copy_tasks.harness.state_size import (
    FLOAT32,
    float_bits,
    part_bits,
    ssm_state_width,
    state_bits,
    state_bits_of,
    state_numbers,
)
from copy_tasks.models.lstm_lm import LstmConfig
from copy_tasks.models.reference_lm import BoundedStateLM, NgramCopierLM

TOKENS = torch.tensor([[1, 2, 3, 4, 5, 6]])


def tiny_mamba():
    return transformers.MambaConfig(vocab_size=16, hidden_size=8, state_size=4, num_hidden_layers=2, conv_kernel=3,
                                    expand=2)


def tiny_mamba2():
    return transformers.Mamba2Config(vocab_size=16, hidden_size=8, state_size=4, num_hidden_layers=2, conv_kernel=3,
                                     expand=2, head_dim=4, num_heads=4, n_groups=1)


def tiny_rwkv():
    return transformers.RwkvConfig(vocab_size=16, hidden_size=8, num_hidden_layers=2, intermediate_size=16)


def test_hand_worked_counts_of_each_architecture():
    # Mamba: 2 layers x (16 inner x 4 state + 16 inner x (3 - 1) convolution inputs)
    assert state_numbers(tiny_mamba()) == 2 * (16 * 4 + 16 * 2) == 192
    # Mamba-2: 2 layers x (4 heads x 4 x 4 state + (16 + 2 x 1 x 4) channels x 2 inputs)
    assert state_numbers(tiny_mamba2()) == 2 * (4 * 4 * 4 + 24 * 2) == 224
    # RWKV-4: 2 layers x (3 x 8 attention numbers + 2 x 8 token shifts)
    assert state_numbers(tiny_rwkv()) == 2 * (3 * 8 + 2 * 8) == 80
    # fla's RWKV-7 (no config class here): 24 layers x (32 heads x 64 x 64 + 2 x 2048)
    rwkv7 = SimpleNamespace(model_type="rwkv7", hidden_size=2048, head_dim=64, num_heads=None, num_hidden_layers=24)
    assert state_numbers(rwkv7) == 24 * (32 * 64 * 64 + 2 * 2048)
    assert state_bits(LstmConfig(hidden_size=256, num_hidden_layers=6)) == 32 * 2 * 6 * 256 == 98_304


@pytest.mark.parametrize("config", [transformers.LlamaConfig(), transformers.GPTNeoXConfig(),
                                    SimpleNamespace(model_type="mamba2", hidden_size=8),  # fields missing
                                    SimpleNamespace(model_type="jamba", hidden_size=8), None],
                         ids=["llama", "gpt_neox", "mamba2-incomplete", "jamba", "none"])
def test_a_transformer_a_hybrid_and_a_config_we_cannot_read_have_no_state_size(config):
    assert state_numbers(config) is None and state_bits(config, "float32") is None


@pytest.mark.parametrize(("dtype", "bits"), [(torch.bfloat16, 16), ("torch.float16", 16), ("half", 16),
                                             (torch.float64, 64), (torch.float32, 32), ("auto", 32), (None, 32)])
def test_a_number_is_32_bits_unless_the_dtype_says_otherwise(dtype, bits):
    assert float_bits(dtype) == bits
    # Mamba-2's 128 SSM numbers stay float32 (in the weights' dtype where transformers gives the model
    # a cache class of its own, as 5.0 does); its 96 convolution inputs follow the weights
    assert state_bits(tiny_mamba2(), dtype) == 128 * mamba2_ssm_bits(bits) + 96 * bits


def mamba2_ssm_bits(weight_bits: int) -> int:
    """The bits of one number of Mamba-2's SSM state in the installed transformers."""
    return part_bits(ssm_state_width("mamba2", FLOAT32), weight_bits)


def cached_bits(model) -> int:
    """The bits the model's own cache holds after a prompt, one sequence, each tensor at its own
    dtype, without the oldest input of each convolution window (never read again)."""
    with torch.no_grad():
        out = model(TOKENS, use_cache=True)
    if getattr(out, "state", None) is not None:  # RWKV-4: 5 tensors of (batch, hidden, layers)
        return sum(bits(tensor[0]) for tensor in out.state)
    cache = out.cache if getattr(out, "cache", None) is not None else out.cache_params
    total = 0
    for layer in range(model.config.num_hidden_layers):
        if hasattr(cache, "get_conv_state"):
            conv, recurrent = cache.get_conv_state(layer), cache.get_recurrent_state(layer)
        else:  # transformers before 5.x's linear-attention caches: MambaCache, Mamba2Cache
            conv, recurrent = cache.conv_states[layer], cache.ssm_states[layer]
        total += bits(conv[0, :, 1:]) + bits(recurrent[0])
    return total


def bits(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size() * 8


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64], ids=str)
@pytest.mark.parametrize("config", [tiny_mamba(), tiny_mamba2(), tiny_rwkv()], ids=lambda c: c.model_type)
def test_the_count_is_the_state_the_hf_model_keeps_at_each_parts_own_dtype(config, dtype):
    """Under 16-bit weights transformers keeps the SSM (RWKV-4: attention) state in float32 and
    the convolution inputs (shifts) at 16 bits: tiny Mamba-2 holds 128 x 32 + 96 x 16 bits."""
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config).to(dtype).eval()
    assert cached_bits(model) == state_bits(config, dtype)
    if dtype == torch.float32:
        assert cached_bits(model) == 32 * state_numbers(config)


def test_a_live_model_reports_its_weights_dtype_and_an_analytic_model_its_budget():
    model = transformers.AutoModelForCausalLM.from_config(tiny_mamba2()).to(torch.bfloat16)
    hf_like = SimpleNamespace(config=model.config, model=model)  # what lm-eval's HFLM exposes
    assert state_bits_of(hf_like) == 128 * mamba2_ssm_bits(16) + 96 * 16  # its SSM state in float32 (5.25)
    caching = type("CachingLM", (), {})()  # lm-eval's --use_cache wrapper around the model
    caching.lm = hf_like
    assert state_bits_of(caching) == 128 * mamba2_ssm_bits(16) + 96 * 16
    assert state_bits_of(BoundedStateLM(bits=1024)) == 1024
    assert state_bits_of(NgramCopierLM()) is None  # it keeps the whole prompt
    transformer = transformers.AutoModelForCausalLM.from_config(transformers.GPTNeoXConfig(
        vocab_size=16, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16))
    assert state_bits_of(SimpleNamespace(config=transformer.config, model=transformer)) is None
