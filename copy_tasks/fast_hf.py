"""`hf_fast`: lm-eval's `hf` model with a loglikelihood that computes only the logits it uses.

lm-eval's HF backend scores a continuation by computing the logits and a log-softmax over the
whole vocabulary at every position of prompt plus continuation, then keeping the
continuation's positions. For a copy prompt of a few thousand tokens and a model with a large
vocabulary (Gemma 3: 262,144 tokens) that is gigabytes of logits, most of the teacher-forced
cost. This subclass asks the model for the continuation's positions only (transformers'
`logits_to_keep`), one request at a time, with the same left truncation to `max_length`, and
returns the same (log-probability, is_greedy) pairs. Generation is lm-eval's.

Models with sliding-window layers (Gemma 3) that run PyTorch's SDPA switch to the banded SDPA
of `copy_tasks.banded_attention`, which gives those layers only the keys in their window, with
the same results; it serves the teacher-forced forward pass and the generation's prompt alike.

    copy-tasks run --model hf_fast --model_args pretrained=... --tasks random_copy_tf
"""

from __future__ import annotations

import torch
from lm_eval.api.registry import register_model
from lm_eval.models.huggingface import HFLM
from tqdm import tqdm

from copy_tasks.banded_attention import use_banded_attention


@register_model("hf_fast")
class FastLoglikelihoodHFLM(HFLM):
    """HFLM whose `_loglikelihood_tokens` keeps logits only where the continuation is scored."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_banded_attention(self.model)

    def _loglikelihood_tokens(self, requests, disable_tqdm: bool = False, override_bs=None):
        results = []
        for cache_key, context_enc, continuation_enc in tqdm(requests, disable=disable_tqdm or self.rank != 0):
            tokens = (context_enc + continuation_enc)[-(self.max_length + 1) :]
            scored = min(len(continuation_enc), len(tokens) - 1)
            inputs = torch.tensor([tokens[:-1]], device=self.device)
            with torch.no_grad():
                logits = self.model(inputs, logits_to_keep=scored).logits[0, -scored:]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            target = torch.tensor(tokens[-scored:], device=self.device)
            answer = (float(logprobs.gather(1, target[:, None]).sum()), bool((logprobs.argmax(-1) == target).all()))
            results.append(answer)
            if cache_key is not None:
                self.cache_hook.add_partial("loglikelihood", cache_key, answer)
        return results
