"""Generation budgets: room for a correct answer however the model splits it into tokens.

A model may write the same text in many segmentations: the tokenizer's canonical one, one
digit or one character per token, or anything between. Every token a model can write decodes
to at least one byte (byte-level BPE spells any text in bytes, SentencePiece falls back to
bytes; a special token such as EOS ends the generation or decodes to nothing), so an answer of
b bytes takes at most b tokens in any segmentation. A doc's budget is therefore the byte length
of the longest answer its scorer accepts as written (the SQuAD family accepts every gold
answer), and never less than the authors' 50 new tokens.

A generous budget costs a well-behaved model nothing, since the stop sequence (a newline, a
blank line) ends its generation; it costs context: lm-eval keeps the budget free by cutting
the prompt, so the overflow check (`copy_tasks.harness.backend_limits`) counts prompt plus budget.

lm-eval batches only requests with equal generation settings, so budgets are rounded up to a
ladder of a few values per doubling (50 x 2^(k/3): 50, 63, 80, 100, 126, 159, 200, ...): a
task's docs share one to three budgets, batches stay large, and no budget is more than 26% above
what its answer needs.

    >>> generation_budget([" 6093237777"])      # the phone book: the authors' 50 tokens
    50
    >>> generation_budget([" q" * 99])          # a 100-symbol copy: 198 bytes
    200
    >>> generation_budget([" Denver", " Denver Broncos"])
    50
    >>> [ladder_step(needed) for needed in (50, 51, 64, 101, 1000)]
    [50, 63, 80, 126, 1008]
"""

from __future__ import annotations

import math
from collections.abc import Iterable

MIN_GENERATION_TOKENS = 50  # the authors' budget after the prompt
STEPS_PER_DOUBLING = 3


def answer_bytes(answers: Iterable[str]) -> int:
    """The byte length of the longest answer: the most tokens any segmentation can take."""
    return max(len(answer.encode("utf-8")) for answer in answers)


def ladder_step(needed: int) -> int:
    """The smallest budget of the ladder 50 x 2^(k/3) (rounded up) that is at least `needed`."""
    step = 0
    while (budget := math.ceil(MIN_GENERATION_TOKENS * 2 ** (step / STEPS_PER_DOUBLING))) < needed:
        step += 1
    return budget


def generation_budget(answers: Iterable[str]) -> int:
    """New tokens that fit any of `answers` in any segmentation, at least the authors' 50,
    rounded up to the ladder."""
    return ladder_step(max(MIN_GENERATION_TOKENS, answer_bytes(answers)))
