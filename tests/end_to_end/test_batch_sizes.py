"""Do padded batches change an HF Mamba's answers? (README: "Batch sizes".)

lm-eval pads generation batches on the left and passes the attention mask; it pads
loglikelihood batches on the right, without a mask. A state-space model reads padding as
input unless it is masked, so both are checked against one prompt at a time, on the tiny HF
Mamba (the CPU path of transformers' `MambaForCausalLM`) and on GPT-NeoX.
"""

from __future__ import annotations

import pytest
import torch

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end

PROMPTS = ["Alice Smith: 6093237777\nBob Jones: 7123456789\n\nBob Jones:", "the cat sat"]


def load(folder):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    return AutoModelForCausalLM.from_pretrained(folder).eval(), tokenizer


def last_logits_alone(model, tokenizer):
    return [model(**tokenizer([prompt], return_tensors="pt")).logits[0, -1] for prompt in PROMPTS]


@pytest.mark.parametrize("architecture", ["mamba", "gpt_neox"])
@torch.no_grad()
def test_left_padding_with_the_mask_and_right_padding_change_nothing(tiny_models, architecture):
    model, tokenizer = load(tiny_models[architecture])
    alone = last_logits_alone(model, tokenizer)
    tokenizer.padding_side = "left"
    left = tokenizer(PROMPTS, return_tensors="pt", padding=True)
    assert left["attention_mask"][1].min() == 0  # the short prompt really is padded
    batched = model(**left).logits[:, -1]
    for i in range(len(PROMPTS)):
        assert torch.allclose(batched[i], alone[i], atol=1e-5)
    generated = model.generate(**left, max_new_tokens=8, do_sample=False)[:, -8:]
    for i, prompt in enumerate(PROMPTS):
        one = model.generate(**tokenizer([prompt], return_tensors="pt"), max_new_tokens=8, do_sample=False)
        assert torch.equal(generated[i], one[0, -8:])

    tokenizer.padding_side = "right"
    right = tokenizer(PROMPTS, return_tensors="pt", padding=True)
    logits = model(input_ids=right["input_ids"]).logits
    ends = right["attention_mask"].sum(1) - 1
    for i in range(len(PROMPTS)):
        assert torch.allclose(logits[i, ends[i]], alone[i], atol=1e-5)


@torch.no_grad()
def test_mamba_reads_unmasked_left_padding_as_input(tiny_models):
    model, tokenizer = load(tiny_models["mamba"])
    alone = last_logits_alone(model, tokenizer)
    tokenizer.padding_side = "left"
    left = tokenizer(PROMPTS, return_tensors="pt", padding=True)
    unmasked = model(input_ids=left["input_ids"]).logits[:, -1]
    assert torch.allclose(unmasked[0], alone[0], atol=1e-5)  # the longest prompt has no padding
    assert not torch.allclose(unmasked[1], alone[1], atol=1e-4)


def test_lm_eval_batch_size_4_gives_mamba_the_same_answers_as_batch_size_1(tiny_models):
    import lm_eval
    from lm_eval.models.huggingface import HFLM

    from copy_tasks import task_manager

    folder = str(tiny_models["mamba"])
    manager = task_manager(metadata={"copy_tasks_docs": 6, "pretrained": folder})
    tasks = ["phonebook_copy_20", "phonebook_copy_tf_20"]
    answers = {}
    for batch_size in (1, 4):
        model = HFLM(pretrained=folder, device="cpu", batch_size=batch_size)
        out = lm_eval.simple_evaluate(model=model, tasks=tasks, task_manager=manager, log_samples=True)
        answers[batch_size] = {task: [sample["resps"] for sample in out["samples"][task]] for task in tasks}
    one, four = answers[1], answers[4]
    assert one["phonebook_copy_20"] == four["phonebook_copy_20"]
    for single, batched in zip(one["phonebook_copy_tf_20"], four["phonebook_copy_tf_20"]):
        (logprob_1, greedy_1), (logprob_4, greedy_4) = single[0][0], batched[0][0]
        assert logprob_4 == pytest.approx(logprob_1, abs=1e-3) and greedy_4 == greedy_1
