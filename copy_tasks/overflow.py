"""Token accounting: no silent truncation.

lm-eval cuts an over-long context from the left with only a log line, which turns a recall
probe into a silent zero. Every row gets
- `prompt_tokens` and `answer_tokens` (the teacher-forced continuation), -1 when no tokenizer
  is known;
- `generation_budget`: the doc's budget of new tokens (`copy_tasks.budgets`);
- `context_tokens` and `overflow`: 1.0 if prompt plus answer (teacher-forced) or prompt plus
  budget (generation, for which lm-eval keeps the budget free) exceeds the context, 0.0 if
  not, NaN when no tokenizer is known.
The task reports the mean of `overflow` as a metric: any value above 0 marks it invalid.
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
    docs: Sequence[dict], budgets: Sequence[int], limits: ModelLimits, task: str, teacher_forced: bool
) -> list[dict]:
    """Copies of `docs` with their generation budgets, token counts and the `overflow` flag."""
    rows = [dict(doc, context_tokens=limits.context, generation_budget=budget) for doc, budget in zip(docs, budgets)]
    if limits.tokenizer is None:
        log.warning(
            "copy-tasks: %s: no tokenizer known, so prompt lengths were not checked against "
            "the context and overflow is NaN. Pass pretrained= or tokenizer= in --model_args.",
            task,
        )
        for row in rows:
            row.update(prompt_tokens=-1, answer_tokens=-1, overflow=math.nan)
        return rows

    prompt_tokens = _token_counts(limits.tokenizer, docs, "prompt")
    answer_tokens = _token_counts(limits.tokenizer, docs, "continuation")
    needed = []
    for row, prompt, answer in zip(rows, prompt_tokens, answer_tokens):
        needed.append(prompt + (answer if teacher_forced else row["generation_budget"]))
        row.update(prompt_tokens=prompt, answer_tokens=answer, overflow=float(needed[-1] > limits.context))
    over = sum(row["overflow"] == 1.0 for row in rows)
    if over:
        log.warning(
            "copy-tasks: %s: %d of %d docs do not fit the context of %d tokens (from %s): "
            "they need up to %d tokens of prompt and answer, and lm-eval would cut the prompt "
            "from the left. Their scores are invalid (metric overflow=%.3f). Fix: pass a larger "
            "max_length in --model_args if the model can read that far, or leave out this length.",
            task, over, len(rows), limits.context, limits.context_source, max(needed), over / len(rows),
        )
    return rows
