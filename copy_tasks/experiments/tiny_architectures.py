"""Tiny random models of every architecture family researchers bring to recall probes, for the
architecture sweep (`tests/experiments/test_tiny_architectures.py`): transformers (full, sliding,
mixed), state-space and recurrent models, and the hybrids of both (Jamba, Zamba 2, Bamba, Falcon-H1,
Granite 4, Nemotron-H, LFM2, Qwen3-Next, Qwen3.5, Kimi Linear, OLMo hybrid, ...), each a
`model_type` of the installed transformers at width 32 and 2 layers (`SWEEP`: its settings
beyond `SMALL`), so that a release that breaks one is caught.

`build_tiny_architecture(model_type, folder)` writes one, with the tiny byte-level BPE tokenizer
of `tiny_models`, loadable by `lm_eval --model hf`. Their memory is what the run measures
(`copy_tasks.harness.cache_memory`): `EXPECTED_LABELS` is what each must measure as.

    >>> sorted(SWEEP)[:4], len(SWEEP)
    (['bailing_hybrid', 'bamba', 'falcon_h1', 'falcon_mamba'], 31)
"""

from __future__ import annotations

from pathlib import Path

SMALL = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
         "intermediate_size": 64, "head_dim": 16}
_LINEAR = {"linear_num_key_heads": 1, "linear_num_value_heads": 2, "linear_key_head_dim": 16,
           "linear_value_head_dim": 16}
_LINEAR_THEN_FULL = {"layer_types": ["linear_attention", "full_attention"]}
_MLA = {"qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 16, "kv_lora_rank": 16, "q_lora_rank": 16,
        "moe_intermediate_size": 32, "num_experts": 2, "num_experts_per_token": 1, "linear_num_heads": 2,
        "linear_head_dim": 16}
_MAMBA2_HEADS = {"mamba_d_state": 4, "mamba_n_heads": 4, "mamba_d_head": 16, "mamba_n_groups": 1}

SWEEP: dict[str, dict] = {
    # transformers: full attention, every layer sliding, sliding and full mixed
    "gpt_neox": {}, "llama": {}, "mistral": {"sliding_window": 8},
    "qwen2": {"sliding_window": 8, "use_sliding_window": True, "max_window_layers": 0},
    "gemma2": {"sliding_window": 8}, "gemma3_text": {"sliding_window": 8,
                                                     "layer_types": ["sliding_attention", "full_attention"]},
    "minimax": {},
    # state-space and recurrent models
    "mamba": {"state_size": 4, "expand": 2}, "falcon_mamba": {"state_size": 4, "expand": 2},
    "mamba2": {"state_size": 8, "num_heads": 4, "n_groups": 1, "expand": 2},
    "rwkv": {"attention_hidden_size": 32, "context_length": 4096},
    "xlstm": {"hidden_size": 64, "embedding_dim": 64, "num_blocks": 2, "num_heads": 1, "qk_dim_factor": 1.0,
              "v_dim_factor": 1.0, "chunk_size": 4, "pad_token_id": 0},
    # hybrids of attention and a recurrence or convolution
    "jamba": {"attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2, "expert_layer_offset": 1,
              "mamba_d_state": 4, "use_mamba_kernels": False, "num_experts": 2},
    "zamba2": {"layers_block_type": ["mamba", "hybrid"], "hybrid_layer_ids": [1], "mamba_d_state": 4,
               "n_mamba_heads": 2, "mamba_headdim": 32, "attention_hidden_size": 64, "attention_head_dim": 32,
               "use_mem_rope": False, "use_mamba_kernels": False, "chunk_size": 4},
    "bamba": {"attn_layer_indices": [1], **_MAMBA2_HEADS},
    "falcon_h1": {**_MAMBA2_HEADS, "mamba_d_ssm": 64},
    "granitemoehybrid": {"layer_types": ["mamba", "attention"], **_MAMBA2_HEADS, "num_local_experts": 2,
                         "num_experts_per_tok": 1},
    "nemotron_h": {"hybrid_override_pattern": "M*", "mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 4,
                   "n_groups": 1},
    "lfm2": {"layer_types": ["conv", "full_attention"]},
    "lfm2_moe": {"layer_types": ["conv", "full_attention"], "num_experts": 2, "num_experts_per_tok": 1,
                 "num_dense_layers": 1},
    "qwen3_next": {**_LINEAR_THEN_FULL, **_LINEAR, "num_experts": 2, "num_experts_per_tok": 1},
    "qwen3_5_text": {**_LINEAR_THEN_FULL, **_LINEAR},
    "qwen3_5_moe_text": {**_LINEAR_THEN_FULL, **_LINEAR, "num_experts": 2, "num_experts_per_tok": 1,
                         "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32},
    "kimi_linear": {"pad_token_id": 0, **_LINEAR_THEN_FULL, "mlp_layer_types": ["dense", "dense"], **_MLA},
    "olmo_hybrid": {"pad_token_id": 0, "linear_num_key_heads": 2, "linear_num_value_heads": 2,
                    "linear_key_head_dim": 16, "linear_value_head_dim": 16},
    "bailing_hybrid": {"pad_token_id": 0, **_MLA, "layer_group_size": 2},
    "lfm3": {"pad_token_id": 0, "layer_types": ["conv", "full_attention"]},
    "lara_mini": {"layer_types": ["linear_attention", "full_attention"]}, "zaya": {}, "inkling_text": {},
    "recurrent_gemma": {"attention_window_size": 8, "lru_width": 32, "block_types": ["recurrent", "attention"]},
}

TRANSFORMER, SSM, HYBRID, BOUNDED = "transformer", "ssm", "hybrid", "bounded attention"
EXPECTED_LABELS = {
    **dict.fromkeys(("gpt_neox", "llama", "gemma2", "gemma3_text", "minimax"), TRANSFORMER),
    **dict.fromkeys(("mistral", "qwen2"), BOUNDED),
    **dict.fromkeys(("mamba", "falcon_mamba", "mamba2", "rwkv", "xlstm"), SSM),
    **dict.fromkeys(("lfm3", "jamba", "zamba2", "bamba", "falcon_h1", "granitemoehybrid", "nemotron_h", "lfm2",
                     "lfm2_moe", "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "kimi_linear", "olmo_hybrid",
                     "bailing_hybrid", "lara_mini", "zaya", "inkling_text", "recurrent_gemma"), HYBRID),
}


def build_tiny_architecture(model_type: str, folder: str | Path, seed: int = 0) -> Path:
    """Write a tiny random model of `model_type` (`SWEEP`) and the tiny tokenizer to `folder`."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from copy_tasks.experiments.tiny_models import build_tokenizer

    if model_type not in SWEEP:
        raise ValueError(f"model_type={model_type!r}: allowed are {', '.join(sorted(SWEEP))}")
    tokenizer = build_tokenizer()
    special = {"vocab_size": len(tokenizer), "bos_token_id": tokenizer.bos_token_id,
               "eos_token_id": tokenizer.eos_token_id, "pad_token_id": tokenizer.pad_token_id}
    config = AutoConfig.for_model(model_type, **{**SMALL, **special, **SWEEP[model_type]})
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    folder = Path(folder)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
