"""`hf_fast` returns exactly what lm-eval's `hf` returns for loglikelihood requests."""

from __future__ import annotations

import pytest
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM

from copy_tasks.banded_attention import BANDED_SDPA
from copy_tasks.docs import generate_docs
from copy_tasks.fast_hf import FastLoglikelihoodHFLM


@pytest.mark.parametrize("architecture", ["gpt_neox", "mamba", "gemma3"])
def test_same_logprobs_and_verdicts_as_lm_eval_hf(tiny_models, architecture):
    docs = generate_docs("random_copy", 50, 1, 3) + generate_docs("phonebook_copy", 200, 1, 2)
    requests = [Instance(request_type="loglikelihood", doc=d, arguments=(d["prompt"], d["continuation"]), idx=0)
                for d in docs]
    # The 200-entry books exceed the tiny models' 2048 tokens: left truncation must match too.
    # On Gemma 3 (sliding window) hf_fast's banded attention takes every long prompt.
    path = str(tiny_models[architecture])
    expected = HFLM(pretrained=path, device="cpu", batch_size=1).loglikelihood(requests)
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=1)
    assert (fast.model.config._attn_implementation == BANDED_SDPA) == (architecture == "gemma3")
    got = fast.loglikelihood(requests)
    assert [greedy for _, greedy in got] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)
