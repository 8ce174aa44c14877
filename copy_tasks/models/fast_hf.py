"""`hf_fast`: lm-eval's `hf` model with a loglikelihood that computes only the logits it uses.

lm-eval's HF backend scores a continuation by computing the logits and a log-softmax over the
whole vocabulary at every position of prompt plus continuation, then keeping the
continuation's positions. For a copy prompt of a few thousand tokens and a model with a large
vocabulary (Gemma 3: 262,144 tokens) that is gigabytes of logits, most of the teacher-forced
cost. This subclass asks the model for the last positions only (transformers'
`logits_to_keep`): the continuation's, in batches of `--batch_size` requests sorted by length
and padded on the right as `hf` pads them, with the same left truncation to `max_length`, and
returns the same (log-probability, is_greedy) pairs. Generation is lm-eval's. A model that
ignores `logits_to_keep` and returns every position is read at the positions kept (with a
warning: it saves nothing); logits of any other length are refused, never read.

Models with sliding-window layers (Gemma 3) that run PyTorch's SDPA switch to the banded SDPA
of `copy_tasks.models.banded_attention`, which gives those layers only the keys in their window, with
the same results; it serves the teacher-forced forward pass and the generation's prompt alike.

    copy-tasks run --model hf_fast --model_args pretrained=... --tasks random_copy_tf --batch_size 8
"""

from __future__ import annotations

import logging

import torch
from lm_eval.api.registry import register_model
from tqdm import tqdm

from copy_tasks.harness.lm_eval_internals import batched, cache_answer, scored_tokens_hflm
from copy_tasks.models.banded_attention import use_banded_attention

log = logging.getLogger("copy_tasks")


def last_positions(logits: torch.Tensor, keep: int, width: int) -> torch.Tensor:
    """The logits of the last `keep` of `width` input positions, from a forward pass asked for
    them with `logits_to_keep=keep`: as returned, or cut from every position's when the model
    ignored the request.

    >>> last_positions(torch.arange(5.0)[None, :, None], 2, 5)[0, :, 0].tolist()
    [3.0, 4.0]
    """
    if logits.shape[1] == keep:
        return logits
    if logits.shape[1] == width:
        return logits[:, width - keep:]
    raise RuntimeError(f"hf_fast: asked for the logits of the last {keep} of {width} positions, the model returned "
                       f"{logits.shape[1]}: it does not honour logits_to_keep; use --model hf")


def _length_order(request) -> tuple:
    """Longest first (as `hf` orders them), so a batch holds requests of similar lengths."""
    tokens = request.context + request.continuation
    return -len(tokens), tuple(tokens)


@register_model("hf_fast")
class FastLoglikelihoodHFLM(scored_tokens_hflm()):
    """lm-eval's HFLM whose token-level loglikelihood keeps logits only where continuations are
    scored."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_banded_attention(self.model)
        self._warned_of_all_positions = False

    def score_token_requests(self, requests, disable_tqdm: bool = False, override_bs=None):
        ordered, chunks = batched(self, requests, _length_order, override_bs)
        results = []
        with tqdm(total=len(requests), disable=disable_tqdm or self.rank != 0,
                  desc="Running loglikelihood requests") as progress:
            for chunk in chunks:
                for request, answer in zip(chunk, self._score_batch(chunk)):
                    results.append(answer)
                    cache_answer(self, request, answer)
                    progress.update(1)
        return ordered.get_original(results)

    def _score_batch(self, chunk) -> list[tuple[float, bool]]:
        """(log-probability, is_greedy) of each request of a batch, from one forward pass."""
        rows = [(request.context + request.continuation)[-(self.max_length + 1):] for request in chunk]
        scored = [min(len(request.continuation), len(row) - 1) for request, row in zip(chunk, rows)]
        width = max(len(row) - 1 for row in rows)
        # Each row's scored logits sit at positions [len - 1 - scored, len - 1) of its input.
        keep = max(width - (len(row) - 1 - count) for row, count in zip(rows, scored))
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        inputs = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            inputs[i, : len(row) - 1] = torch.tensor(row[:-1])
            mask[i, : len(row) - 1] = 1
        with torch.no_grad():
            logits = self.model(inputs.to(self.device), attention_mask=mask.to(self.device),
                                logits_to_keep=keep).logits
        if keep != logits.shape[1] == width and not self._warned_of_all_positions:
            log.warning("hf_fast: %s ignores logits_to_keep (it returns every position): its logits are read at "
                        "the positions scored, with no saving", type(self.model).__name__)
            self._warned_of_all_positions = True
        logits = last_positions(logits, keep, width)
        answers = []
        for i, (row, count) in enumerate(zip(rows, scored)):
            start = keep - (width - (len(row) - 1 - count))
            logprobs = torch.log_softmax(logits[i, start : start + count].float(), dim=-1)
            target = torch.tensor(row[-count:], device=logprobs.device)
            answers.append((float(logprobs.gather(1, target[:, None]).sum()),
                            bool((logprobs.argmax(-1) == target).all())))
        return answers
