"""What the live model of a run keeps of a prompt (`copy_tasks.harness.state_size`): measured once
from its cache (`cache_memory`), an analytic model's budget, a hand count for our cacheless
model types (issue 53)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
import transformers

from copy_tasks.harness.cache_memory import Memory, measure_memory
from copy_tasks.harness.state_size import memory_of
from copy_tasks.models.reference_lm import BoundedStateLM, NgramCopierLM

SMALL = {"vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 1, "intermediate_size": 64, "head_dim": 16}


def built(model_type: str, dtype=torch.float32, **settings):
    config = transformers.AutoConfig.for_model(model_type, **{**SMALL, **settings})
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(config).to(dtype).eval()


def tiny_mamba2(dtype=torch.float32):
    return built("mamba2", dtype, state_size=8, expand=2, head_dim=16, num_heads=4, n_groups=1, conv_kernel=3)


def test_a_live_model_is_measured_once_and_an_analytic_model_reports_its_budget(monkeypatch):
    model = tiny_mamba2(torch.bfloat16)
    hf_like = SimpleNamespace(config=model.config, model=model)  # what lm-eval's HFLM exposes
    measured = memory_of(hf_like)
    assert measured == measure_memory(model)
    caching = type("CachingLM", (), {})()  # lm-eval's --use_cache wrapper around the model
    caching.lm = hf_like
    with monkeypatch.context() as patched:
        patched.setattr("copy_tasks.harness.state_size.measure_memory", lambda model: pytest.fail("measured twice"))
        assert memory_of(caching) == measured
    assert memory_of(BoundedStateLM(bits=1024)) == Memory(1024, 0)
    assert memory_of(NgramCopierLM()) == Memory(0, 8)  # it keeps the prompt's text: 8 bits a byte, nothing fixed
    transformer = built("gpt_neox")
    assert memory_of(SimpleNamespace(config=transformer.config, model=transformer)) == Memory(0, 2 * 2 * 2 * 16 * 32)


def test_our_cacheless_model_types_are_counted_by_hand():
    from copy_tasks.models.lstm_lm import LstmConfig, LstmForCausalLM

    lstm = LstmForCausalLM(LstmConfig(vocab_size=16, hidden_size=8, num_hidden_layers=2))
    assert memory_of(SimpleNamespace(config=lstm.config, model=lstm)) == Memory(2 * 2 * 8 * 32, 0,
                                                                               recurrent_kind="rnn")
    assert measure_memory(lstm) is None  # no cache object to measure: the hand count stands
