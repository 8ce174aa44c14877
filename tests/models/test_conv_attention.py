"""Conv-then-attention, Zoology's MQAR baseline as a model type of ours
(`copy_tasks.models.conv_attention`): loaded by transformers' Auto classes (and so by plain
`lm_eval --model hf`), its padding and its causality."""

from __future__ import annotations

import torch

from copy_tasks.models.conv_attention import MODEL_TYPE, ConvAttentionConfig, ConvAttentionForCausalLM


def tiny(seed: int = 0) -> ConvAttentionForCausalLM:
    torch.manual_seed(seed)
    return ConvAttentionForCausalLM(ConvAttentionConfig(vocab_size=40, hidden_size=16, num_hidden_layers=2)).eval()


def test_a_saved_model_loads_through_the_auto_classes_as_the_same_tied_model(tmp_path):
    from transformers import AutoModelForCausalLM

    from copy_tasks.models.trained_architectures import register

    register()
    model = tiny()
    model.save_pretrained(tmp_path)
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    assert loaded.config.model_type == MODEL_TYPE and loaded.head.weight is loaded.embed.weight
    tokens = torch.randint(0, 40, (2, 9))
    with torch.no_grad():
        assert torch.allclose(loaded(tokens).logits, model(tokens).logits)


def test_a_rows_logits_do_not_depend_on_its_left_padding_and_no_position_sees_a_later_token():
    model, tokens = tiny(), torch.randint(1, 40, (1, 8))
    padded = torch.cat([torch.zeros(1, 3, dtype=torch.long), tokens], dim=1)
    mask = torch.cat([torch.zeros(1, 3, dtype=torch.long), torch.ones(1, 8, dtype=torch.long)], dim=1)
    changed = tokens.clone()
    changed[0, 5] = (tokens[0, 5] + 1) % 40
    with torch.no_grad():
        alone = model(tokens).logits
        assert torch.allclose(model(padded, attention_mask=mask).logits[:, 3:], alone, atol=1e-6)
        later = model(changed).logits
    assert torch.allclose(later[:, :5], alone[:, :5], atol=1e-6) and not torch.allclose(later[:, 5:], alone[:, 5:])


def test_generation_writes_the_argmax_of_each_step_without_a_cache():
    model, prompt = tiny(), torch.randint(1, 40, (1, 6))
    with torch.no_grad():
        written = model.generate(prompt, max_new_tokens=3, do_sample=False, pad_token_id=0)[0, 6:].tolist()
        ids = prompt
        for token in written:
            assert int(model(ids).logits[0, -1].argmax()) == token
            ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
