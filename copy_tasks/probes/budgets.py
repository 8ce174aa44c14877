"""Generation budgets: room for a correct answer however the model splits it into tokens.

A model may write the same text in many segmentations: the tokenizer's canonical one, one
digit or one character per token, or anything between. Every token a model can write decodes
to at least one byte (byte-level BPE spells any text in bytes, SentencePiece falls back to
bytes; a special token such as EOS ends the generation or decodes to nothing), so an answer of
b bytes takes at most b tokens in any segmentation. A doc's budget is therefore the byte length
of the longest answer its scorer accepts as written (the SQuAD family accepts every gold
answer), and never less than the authors' 50 new tokens.

A generous budget costs a well-behaved model nothing, since the stop sequence (a newline, a
blank line) ends its generation, nor, on lm-eval's `hf`, a model that never stops: each row ends
once its text settles both rules' verdicts (`copy_tasks.harness.answer_stops`), so a row runs
to its budget only while what it has written may still become an accepted answer (a prefix of
one, up to spaces), which is where a smaller budget could change a verdict. It costs context:
lm-eval keeps the budget free by cutting the prompt, so the overflow check
(`copy_tasks.harness.backend_limits`) counts prompt plus budget.

Why not the answer's own tokens plus a margin, where the backend's tokenizer is known: that
counts the tokenizer's canonical segmentation, which a model need not write. The tiny test
tokenizer writes the phone number ` 6093237777` in 6 tokens, and a model may write it a digit
a token (11): a budget of 6 + 2 would cut that right answer, its verdict then depending on its
segmentation. For an ASCII answer the backend's own finest segmentation (a byte a token in
byte-level BPE and SentencePiece's byte fallback) is as long as its bytes, so the byte bound is
also the least budget that fits every segmentation of the backend's own tokenizer. What holds:
a right answer fits in any segmentation; a row decodes past its answer only until both verdicts
are final (`answer_stops`; a token past the number on the phone book, none past a lookup's k
letters); and a doc fits the context when its room holds the answer in the model's own tokens
plus `ANSWER_MARGIN` (below).

lm-eval batches only requests with equal generation settings, so budgets are rounded up to a
ladder of a few values per doubling (50 x 2^(k/3): 50, 63, 80, 100, 126, 159, 200, ...): a
task's docs share one to three budgets, batches stay large, and no budget is more than 26% above
what its answer needs.

Where the backend that runs a task can count tokens, the generous bound is capped at the room
the prompt leaves in the model's context (`fitted_budget`), rounded down to the ladder (which
goes on below 50: 40, 32, 25, ...), so that no budget makes a backend cut a prompt or refuse a
request. A doc fits when that room holds its answer in the model's own tokens plus
`ANSWER_MARGIN` tokens for the stop sequence after it; one that does not is overflow and
generates `OVERFLOW_BUDGET` token.

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
ANSWER_MARGIN = 2  # tokens beyond the answer that a fitting doc's room must hold (the stop sequence)
OVERFLOW_BUDGET = 1  # new tokens for a doc whose answer does not fit: it reports no score


def answer_bytes(answers: Iterable[str]) -> int:
    """The byte length of the longest answer: the most tokens any segmentation can take."""
    return max(len(answer.encode("utf-8")) for answer in answers)


def _rung(step: int) -> int:
    return math.ceil(MIN_GENERATION_TOKENS * 2 ** (step / STEPS_PER_DOUBLING))


def ladder_step(needed: int) -> int:
    """The smallest budget of the ladder 50 x 2^(k/3) (rounded up, k >= 0) that is at least `needed`."""
    step = 0
    while (budget := _rung(step)) < needed:
        step += 1
    return budget


def ladder_floor(room: int) -> int:
    """The largest value of the ladder 50 x 2^(k/3) (rounded up, any integer k) that is at most
    `room` (at least 1).

    >>> [ladder_floor(room) for room in (1, 10, 49, 50, 62, 63, 2000)]
    [1, 10, 40, 50, 50, 63, 1600]
    """
    if room < 1:
        raise ValueError(f"room={room}: a budget needs at least 1 token of room")
    step = 0
    while _rung(step) > room:
        step -= 1
    while _rung(step + 1) <= room:
        step += 1
    return _rung(step)


def generation_budget(answers: Iterable[str]) -> int:
    """New tokens that fit any of `answers` in any segmentation, at least the authors' 50,
    rounded up to the ladder."""
    return ladder_step(max(MIN_GENERATION_TOKENS, answer_bytes(answers)))


def fitted_budget(generous: int, room: int, answer_tokens: int) -> int | None:
    """The budget of a doc whose prompt leaves `room` tokens of the model's context and whose
    answer takes `answer_tokens` of that model's tokens: the `generous` bound capped down to
    the ladder within the room, never less than the answer and its margin. None when the room
    cannot hold the answer and its margin (the doc is overflow).

    >>> fitted_budget(200, room=5000, answer_tokens=120)     # room to spare: the generous bound
    200
    >>> fitted_budget(3200, room=1400, answer_tokens=700)    # capped down to the ladder
    1270
    >>> fitted_budget(50, room=30, answer_tokens=6)          # a phone book at the context's edge
    25
    >>> fitted_budget(3200, room=703, answer_tokens=700), fitted_budget(3200, room=701, answer_tokens=700)
    (702, None)
    """
    needed = answer_tokens + ANSWER_MARGIN
    if room < needed:
        return None
    return min(generous, max(needed, ladder_floor(room)))
