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
the prompt, so the overflow check (`copy_tasks.overflow`) counts prompt plus budget.

    >>> generation_budget([" 6093237777"])      # the phone book: the authors' 50 tokens
    50
    >>> generation_budget([" q" * 100])         # a 100-symbol copy: 200 bytes
    200
    >>> generation_budget([" Denver", " Denver Broncos"])
    50
"""

from __future__ import annotations

from collections.abc import Iterable

MIN_GENERATION_TOKENS = 50  # the authors' budget after the prompt


def answer_bytes(answers: Iterable[str]) -> int:
    """The byte length of the longest answer: the most tokens any segmentation can take."""
    return max(len(answer.encode("utf-8")) for answer in answers)


def generation_budget(answers: Iterable[str]) -> int:
    """New tokens that fit any of `answers` in any segmentation, at least the authors' 50."""
    return max(MIN_GENERATION_TOKENS, answer_bytes(answers))
