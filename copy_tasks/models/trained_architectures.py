"""The model types of `copy-tasks train` that transformers does not know: Hard-ALiBi
(`copy_tasks.models.hard_alibi`), the LSTM (`copy_tasks.models.lstm_lm`) and conv-then-attention
(`copy_tasks.models.conv_attention`).

`register()` enters them into transformers' Auto classes, so `AutoModelForCausalLM` (and so
`lm_eval --model hf`) loads their checkpoints; the start-up hook calls it when lm-eval's `hf`
backend is imported. Without it a load fails on the unknown model type: it can never score a
different model. Idempotent.

    >>> register()
    >>> from transformers import AutoConfig
    >>> AutoConfig.for_model("copy_tasks_lstm").model_type
    'copy_tasks_lstm'
"""

from __future__ import annotations

_REGISTERED = []


def register() -> None:
    if _REGISTERED:
        return
    from transformers import AutoConfig, AutoModelForCausalLM

    from copy_tasks.models.conv_attention import ConvAttentionConfig, ConvAttentionForCausalLM
    from copy_tasks.models.hard_alibi import HardAlibiConfig, HardAlibiForCausalLM
    from copy_tasks.models.lstm_lm import LstmConfig, LstmForCausalLM

    for config, model in ((HardAlibiConfig, HardAlibiForCausalLM), (LstmConfig, LstmForCausalLM),
                          (ConvAttentionConfig, ConvAttentionForCausalLM)):
        AutoConfig.register(config.model_type, config, exist_ok=True)
        AutoModelForCausalLM.register(config, model, exist_ok=True)
    _REGISTERED.append(True)
