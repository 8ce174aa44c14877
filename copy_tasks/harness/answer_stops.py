"""Generation that stops once a row holds its answer, on lm-eval's `hf` backend (and `hf_fast`).

lm-eval's `hf` stops a batch only when every row has written a stop sequence (its stopping
criterion answers for the whole batch), so one row that runs on makes every row decode to the
budget, and a model that never writes a stop sequence decodes every budget to its end. Our tasks
register, for each generation request, what its row must hold (`register_rows`): the rule of its
family (`Family.answer_settled`: every text that may follow gets the same metrics under our rule
and the authors'), and lm-eval's stopping criterion for a batch is joined by one that ends each
row of ours on its own (`RowsWithAnswers`) once it has written a stop sequence or once its text
settles both verdicts; the batch ends when every row has (transformers' `generate` pads a
finished row, and lm-eval decodes without its special tokens, so the padding is not text). Rows
of other tasks, and prompts the backend tokenized otherwise than registered, are left as lm-eval
runs them, and so is every row of a run that does not decode greedily (`--gen_kwargs
do_sample=True`, beams): a sampled row that stopped early would draw fewer random numbers and
change what the later rows draw.

Per family, what ends a row before its stop sequence (the family modules' `*_settled`):
- phone book, passkey, mqar (stop "\\n"): ours reads the leading number, the authors' the first
  line stripped. `Ann Lee:` answered " 6093237777" is not settled (a newline next is right under
  both rules, a space and more text wrong under the authors'); " 6093237777 A" is (ours right,
  theirs wrong, whatever follows); " 7" is at once (wrong under both); " Ann" is not, since it
  may restate the prompt's last line `Ann Lee:` (our rule also reads the answer after it).
- lookups (stops "\\n", "."): both rules read the first k letters written, so " f o l h" with
  k = 4 is settled at its fourth letter, the authors' stop (the first line) read by neither past them.
- copies (stop "\\n\\n"): ours reads the first n words, theirs the text before the blank line,
  which must be the passage and nothing more: a right copy is settled once one character other
  than a space follows it (wrong for them), a wrong one at its first complete wrong word.
- SQuAD: both rules read the whole line or paragraph: it runs to its stop sequence, as before.

A decoded prefix is not always a prefix of the text decoded later: a token may end inside a
UTF-8 character, and a tokenizer that cleans up tokenization spaces turns " ." into "." once
the "." comes. A byte-level decoder (GPT-2's) writes one U+FFFD for the unfinished character; a
byte-fallback decoder (sentencepiece's, as Llama, Mistral and Gemma ship) writes one for every
byte of the run of byte tokens it cannot yet decode, which may include whole characters before
the unfinished one (Gemma 3 writes 403 of `mqar`'s 512 Zoology values as three byte tokens). So
a row is judged on the part of its text no later token can change (`lasting_text`): without its
trailing run of U+FFFD and, under that clean-up, only up to its last space; and without a
trailing start of a stop sequence ("\\n" of "\\n\\n"), which a later cut may remove. The verdict
of the text where the row stopped then equals that of any text the row could have gone on to
write: the verdicts do not change, only the steps decoded.
"""

from __future__ import annotations

import hashlib
import weakref
from array import array
from collections.abc import Callable, Sequence

from copy_tasks.harness.lm_eval_internals import PATCH_TARGETS, patch, unwrap_model

REPLACEMENT = "\ufffd"  # what a decoder writes for a character whose bytes are not all there yet
# A model's tokenizer -> {its prompt's key (`prompt_key`) -> its row's rule}: the rules of one
# model's runs, gone with it.
_RULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def prompt_key(ids: Sequence[int], pad_id: int | None) -> bytes:
    """A digest of a prompt's token ids, left padding (leading `pad_id`s) removed.

    >>> prompt_key([0, 0, 5, 6], 0) == prompt_key([5, 6], 0) != prompt_key([5, 7], 0)
    True
    """
    start = 0
    while start < len(ids) and ids[start] == pad_id:
        start += 1
    return hashlib.sha256(array("q", ids[start:]).tobytes()).digest()


def lasting_text(text: str, cleans_up_spaces: bool) -> str:
    """The part of a row's decoded text that later tokens cannot change: without its trailing
    U+FFFD, however many (the bytes of characters not yet whole), and, for a tokenizer that
    cleans up tokenization spaces, only up to its last space.

    >>> lasting_text(" 609\\ufffd", False), lasting_text(" 6093237777 An", True), lasting_text(" ab ", False)
    (' 609', ' 6093237777', ' ab ')
    >>> lasting_text(" r\\u3000u\\u3000j\\ufffd\\ufffd", False)  # two of U+3000's three bytes
    ' r\\u3000u\\u3000j'
    """
    text = text.rstrip(REPLACEMENT)
    if cleans_up_spaces:
        last = max((i for i, char in enumerate(text) if char.isspace()), default=0)
        text = text[:last]
    return text


def without_started_stop(text: str, stops: Sequence[str]) -> str:
    """`text` without a trailing start of one of the `stops` (a later cut may begin there).

    >>> without_started_stop(" cat sat\\n", ["\\n\\n"]), without_started_stop(" 12<|end", ["\\n", "<|endoftext|>"])
    (' cat sat', ' 12')
    """
    cut = max((size for stop in stops for size in range(1, len(stop)) if text.endswith(stop[:size])), default=0)
    return text[: len(text) - cut]


def row_is_done(text: str, stops: Sequence[str], cleans_up_spaces: bool, settled: Callable[[str], bool]) -> bool:
    """Whether a row that has written `text` may stop: it holds a stop sequence, or what it holds
    for good settles its verdicts (`settled`, its family's `answer_settled`).

    >>> settled = lambda text: len(text.split()) >= 2
    >>> [row_is_done(text, ["\\n"], False, settled) for text in (" a", " a\\n", " a b", " a b\\ufffd")]
    [False, True, True, True]
    """
    lasting = lasting_text(text, cleans_up_spaces)
    if any(stop and stop in lasting for stop in stops):
        return True
    return settled(without_started_stop(lasting, stops))


def stopping_point(text: str, stops: Sequence[str], cleans_up_spaces: bool, settled: Callable[[str], bool]) -> int:
    """How much of `text` a row that writes it one character a token decodes before it stops
    (`row_is_done`): the most any tokenization of it decodes; all of it if it never settles.

    >>> stopping_point(" a b c d", ["\\n"], False, lambda text: len(text.split()) >= 2)
    4
    """
    return next((end for end in range(len(text) + 1) if row_is_done(text[:end], stops, cleans_up_spaces, settled)),
                len(text))


def register_rows(lm) -> Callable[[str, Callable[[str], bool]], None] | None:
    """For a live lm-eval model: where it is lm-eval's `hf` (or a subclass), hook its stopping
    criteria (once) and return a function that registers a request's context and its row's
    rule; None for any other backend, whose generation is left as it is."""
    lm = unwrap_model(lm)
    if not any(cls.__name__ == "HFLM" for cls in type(lm).__mro__):
        return None
    hook_hf_stopping_criteria()
    rules = _RULES.setdefault(lm.tokenizer, {})

    def register(context: str, settled: Callable[[str], bool]) -> None:
        rules[prompt_key(lm.tok_encode(context), lm.tokenizer.pad_token_id)] = settled

    return register


def hook_hf_stopping_criteria() -> None:
    """Wrap lm-eval's `hf` stopping criteria (`PATCH_TARGETS["generation_stops"]`) by
    `with_rows_with_answers`, once (the adapter's `patch`)."""
    import importlib

    module = importlib.import_module(PATCH_TARGETS["generation_stops"].module)
    patch(module, "generation_stops", with_rows_with_answers)


def with_rows_with_answers(stop_sequences_criteria):
    """lm-eval's `stop_sequences_criteria(tokenizer, stop_sequences, initial_decoder_input_length,
    batch_size)`, its criteria joined by `RowsWithAnswers`."""

    def criteria(tokenizer, stop_sequences, initial_decoder_input_length, batch_size):
        built = stop_sequences_criteria(tokenizer, stop_sequences, initial_decoder_input_length, batch_size)
        if rules := _RULES.get(tokenizer):
            built.append(rows_with_answers(tokenizer, list(stop_sequences), initial_decoder_input_length, rules))
        return built

    return criteria


def rows_with_answers(tokenizer, stops: list[str], prompt_length: int, rules: dict):
    """A transformers `StoppingCriteria` that ends each row of a batch on its own once it is done
    (`row_is_done`, with the rule registered for its prompt; a row without one is never ended here)."""
    import torch
    from transformers import StoppingCriteria

    class RowsWithAnswers(StoppingCriteria):
        def __init__(self) -> None:
            self.row_rules: list | None = None
            self.done: list[bool] = []
            self.cleans_up = bool(getattr(tokenizer, "clean_up_tokenization_spaces", False))

        def __call__(self, input_ids, scores, **kwargs):
            if self.row_rules is None:
                self.row_rules = [rules.get(prompt_key(row[:prompt_length].tolist(), tokenizer.pad_token_id))
                              for row in input_ids]
                self.done = [False] * len(self.row_rules)
            for row, rule in enumerate(self.row_rules):
                if rule is not None and not self.done[row]:
                    text = tokenizer.decode(input_ids[row, prompt_length:], skip_special_tokens=True)
                    self.done[row] = row_is_done(text, stops, self.cleans_up, rule)
            return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)

    return RowsWithAnswers()
