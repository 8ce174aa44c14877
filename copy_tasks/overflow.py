"""No silent truncation: count each prompt's tokens and flag docs the model cannot read whole.

lm-eval cuts an over-long context from the left with only a log line, which turns a recall
probe into a silent zero. Every row gets `prompt_tokens`, `answer_tokens` (the generation
budget, or the teacher-forced continuation's tokens), `context_tokens` and `overflow`: 1.0 if
prompt plus answer exceeds the context, 0.0 if not, NaN when no tokenizer is known. The task
reports the mean of `overflow` as a metric: any value above 0 marks its scores invalid.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from copy_tasks.model_limits import ModelLimits

log = logging.getLogger("copy_tasks")

_COUNTS: dict[tuple[int, int, str], tuple[object, object, list[int]]] = {}


def _token_counts(tokenizer, docs: Sequence[dict], field: str) -> list[int]:
    """Token counts of one text field of a cached doc set (counted once per process)."""
    key = (id(docs), id(tokenizer), field)
    if key not in _COUNTS:
        texts = [doc[field] for doc in docs]
        special = field == "prompt"  # lm-eval adds BOS to the context only
        ids = tokenizer(texts, add_special_tokens=special)["input_ids"]
        _COUNTS[key] = (docs, tokenizer, [len(i) for i in ids])  # pin docs and tokenizer
    return _COUNTS[key][2]


def count_overflow(
    docs: Sequence[dict], limits: ModelLimits, task: str, generation_budget: int | None
) -> list[dict]:
    """Copies of `docs` with token counts and the `overflow` flag.

    `generation_budget` is the task's `max_gen_toks`; None for a teacher-forced task, whose
    answer is the continuation itself.
    """
    rows = [dict(doc) for doc in docs]
    if limits.tokenizer is None:
        log.warning(
            "copy-tasks: %s: no tokenizer known, so prompt lengths were not checked against "
            "the context and overflow is NaN. Pass pretrained= or tokenizer= in --model_args.",
            task,
        )
        for row in rows:
            row.update(prompt_tokens=-1, answer_tokens=-1, overflow=math.nan)
            row["context_tokens"] = limits.context
        return rows

    prompt_tokens = _token_counts(limits.tokenizer, docs, "prompt")
    if generation_budget is None:
        answer_tokens = _token_counts(limits.tokenizer, docs, "continuation")
    else:
        answer_tokens = [generation_budget] * len(docs)
    over = 0
    for row, prompt, answer in zip(rows, prompt_tokens, answer_tokens):
        overflow = prompt + answer > limits.context
        over += overflow
        row.update(
            prompt_tokens=prompt,
            answer_tokens=answer,
            context_tokens=limits.context,
            overflow=float(overflow),
        )
    if over:
        longest = max(p + a for p, a in zip(prompt_tokens, answer_tokens))
        log.warning(
            "copy-tasks: %s: %d of %d docs do not fit the context of %d tokens (from %s): "
            "they need up to %d tokens of prompt and answer, and lm-eval would cut the prompt "
            "from the left. Their scores are invalid (metric overflow=%.3f). Fix: pass a larger "
            "max_length in --model_args if the model can read that far, or leave out this length.",
            task, over, len(rows), limits.context, limits.context_source, longest,
            over / len(rows),
        )
    return rows
