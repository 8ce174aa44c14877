"""`hf_fast` returns what lm-eval's `hf` returns for loglikelihood requests, batched or not."""

from __future__ import annotations

import pytest
import torch
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM

from copy_tasks.models.banded_attention import BANDED_SDPA
from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM
from copy_tasks.probes.task_docs import generate_docs


def requests():
    # Lengths of 100 to 2,700 tokens: the 200-entry books exceed the tiny models' 2048 tokens, so
    # left truncation must match too, and batches mix very different lengths.
    docs = (generate_docs("random_copy", 50, 1, 3) + generate_docs("phonebook_copy", 200, 1, 2)
            + generate_docs("lookup_suffix", 20, 1, 2) + generate_docs("dup_ngram_copy", 3, 1, 2))
    return [Instance(request_type="loglikelihood", doc=d, arguments=(d["prompt"], d["continuation"]), idx=0)
            for d in docs]


@pytest.mark.parametrize("architecture", ["gpt_neox", "mamba", "gemma3"])
def test_same_logprobs_and_verdicts_as_lm_eval_hf_at_batch_1_and_4(tiny_models, architecture):
    # On Gemma 3 (sliding window) hf_fast's banded attention takes every long prompt.
    path = str(tiny_models[architecture])
    expected = HFLM(pretrained=path, device="cpu", batch_size=4).loglikelihood(requests())
    for batch_size in (1, 4):
        fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=batch_size)
        assert (fast.model.config._attn_implementation == BANDED_SDPA) == (architecture == "gemma3")
        got = fast.loglikelihood(requests())
        assert [greedy for _, greedy in got] == [greedy for _, greedy in expected], batch_size
        assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)


def test_a_batch_is_one_forward_pass(tiny_models, monkeypatch):
    fast = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=4)
    calls = []
    forward = fast.model.forward
    monkeypatch.setattr(fast.model, "forward", lambda *args, **kwargs: calls.append(args[0].shape) or forward(
        *args, **kwargs))
    fast.loglikelihood(requests())
    assert [shape[0] for shape in calls] == [4, 4, 1]  # 9 requests


@pytest.fixture(scope="module")
def lstm_folder(tiny_models, tmp_path_factory):
    """A tiny LSTM (`copy-tasks train`'s model type) with large random weights, so that reading
    the wrong positions changes every log-probability, and the tiny models' tokenizer."""
    from transformers import AutoTokenizer

    from copy_tasks.models.lstm_lm import LstmConfig, LstmForCausalLM
    from copy_tasks.models.trained_architectures import register

    register()
    tokenizer = AutoTokenizer.from_pretrained(tiny_models["gpt_neox"])
    torch.manual_seed(0)
    model = LstmForCausalLM(LstmConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                                       pad_token_id=tokenizer.pad_token_id))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_()
    folder = tmp_path_factory.mktemp("lstm")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_the_lstm_gives_the_same_logprobs_as_lm_eval_hf(lstm_folder):
    # It once ignored logits_to_keep, and hf_fast read its first positions as the last ones.
    cases = requests()[:3]
    expected = HFLM(pretrained=lstm_folder, device="cpu", batch_size=4).loglikelihood(cases)
    got = FastLoglikelihoodHFLM(pretrained=lstm_folder, device="cpu", batch_size=4).loglikelihood(cases)
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)


def test_a_model_ignoring_logits_to_keep_is_read_at_the_scored_positions_or_refused(tiny_models, monkeypatch):
    path = str(tiny_models["gpt_neox"])
    cases = requests()[:3]
    expected = HFLM(pretrained=path, device="cpu", batch_size=4).loglikelihood(cases)
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=4)
    forward = fast.model.forward
    monkeypatch.setattr(fast.model, "forward", lambda *args, logits_to_keep, **kwargs: forward(*args, **kwargs))
    got = fast.loglikelihood(cases)  # every position returned: the last ones read
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)
    monkeypatch.setattr(fast.model, "forward", lambda *args, logits_to_keep, **kwargs: forward(
        *args, logits_to_keep=logits_to_keep + 1, **kwargs))
    with pytest.raises(RuntimeError, match="returned .* does not honour logits_to_keep"):
        fast.loglikelihood(cases)
