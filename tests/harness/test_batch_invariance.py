"""A verdict never depends on the batch size (`copy_tasks.harness.batch_invariance`): a model
whose rows read the rows beside them (RWKV: it ignores the attention mask) runs at batch 1, found
by a check on the model, not its name (issue 53)."""

from __future__ import annotations

import pytest
import torch
import transformers

from copy_tasks.experiments.tiny_models import build_tokenizer
from copy_tasks.harness.batch_invariance import batch_dependence


@pytest.fixture(scope="module")
def tiny_rwkv(tmp_path_factory):
    """A tiny RWKV with weights large enough that its outputs differ from token to token (at its
    own initialisation its logits are all but zero, which hid the dependence)."""
    folder = tmp_path_factory.mktemp("rwkv")
    tokenizer = build_tokenizer(vocab_size=300)
    config = transformers.RwkvConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2,
                                     attention_hidden_size=32, intermediate_size=64, context_length=4096,
                                     bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                                     pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    model = transformers.RwkvForCausalLM(config)
    with torch.no_grad():
        for parameter in model.parameters():
            torch.nn.init.normal_(parameter, std=0.3)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_the_check_finds_rwkv_and_not_a_transformer(tiny_rwkv, tiny_models):
    rwkv = transformers.AutoModelForCausalLM.from_pretrained(tiny_rwkv).eval()
    assert batch_dependence(rwkv) == "its outputs change with left padding (it does not read the attention mask)"
    neox = transformers.AutoModelForCausalLM.from_pretrained(tiny_models["gpt_neox"]).eval()
    assert batch_dependence(neox) is None


@pytest.mark.slow  # three lm-eval runs
def test_rwkvs_answers_at_batch_4_are_its_answers_at_batch_1_and_the_run_says_why(tiny_rwkv, tiny_models):
    """Issue 53: lm-eval's `hf` at batch 1 and 4 wrote different text for RWKV."""
    import lm_eval

    import copy_tasks

    def answers(folder, batch_size: int) -> tuple[dict, dict]:
        results = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={folder}", tasks=["phonebook_copy_10"],
                                          limit=4, batch_size=batch_size, device="cpu", log_samples=True,
                                          task_manager=copy_tasks.task_manager())
        responses = {sample["doc_id"]: sample["resps"] for sample in results["samples"]["phonebook_copy_10"]}
        return responses, results["configs"]["phonebook_copy_10"]["metadata"]

    one, _ = answers(tiny_rwkv, 1)
    four, recorded = answers(tiny_rwkv, 4)
    assert four == one
    assert recorded["copy_tasks_batch_one"] == "its outputs change with left padding (it does not read the " \
                                               "attention mask)"
    assert answers(tiny_models["gpt_neox"], 4)[1]["copy_tasks_batch_one"] is None
