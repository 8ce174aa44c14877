"""The scripted model lm-eval's `hf` loads (`copy_tasks.models.scripted_hf`): after each prompt of
its script it writes the script, then EOS, whatever the padding."""

from __future__ import annotations

import torch
from transformers import AutoModelForCausalLM

from copy_tasks.experiments.tiny_models import build_byte_fallback_tokenizer
from copy_tasks.models.scripted_hf import write_scripted_model


def test_it_writes_its_script_after_each_prompt_then_eos_padded_or_not(tmp_path):
    tokenizer = build_byte_fallback_tokenizer()
    folder = write_scripted_model(tmp_path, tokenizer, {"Ann Lee:": " 609\u3000", "key\uac00": "\uac01\n"})
    model = AutoModelForCausalLM.from_pretrained(folder)
    rows = [tokenizer.encode(prompt, add_special_tokens=False) for prompt in ("Ann Lee:", "key\uac00")]
    width = max(map(len, rows))
    ids = torch.tensor([[tokenizer.pad_token_id] * (width - len(row)) + row for row in rows])
    mask = torch.tensor([[0] * (width - len(row)) + [1] * len(row) for row in rows])
    written = model.generate(ids, attention_mask=mask, max_new_tokens=12, do_sample=False)[:, width:]
    texts = [tokenizer.decode(row, skip_special_tokens=True) for row in written]
    assert texts == [" 609\u3000", "\uac01\n"]
    assert all(tokenizer.eos_token_id in row.tolist() for row in written)
