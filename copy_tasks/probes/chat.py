"""How a doc is put to a chat model, and how an answer that restates the prompt's end is read.

A base prompt ends with the start of its answer, its last line (`given_start`): the phone
book's `Name:`, a copy's first word, a lookup's `Continuation: <key>`, SQuAD's `Answer:`. Sent
as one user turn under lm-eval's `--apply_chat_template`, that start sits in the user's turn
and a chat model begins its own turn afresh: it restates the start, or answers something else.
So the chat form of a doc (`chat_prompt`) ends the prompt in the assistant's turn, as a prefill
(lm-eval's `gen_prefix`) from which the model continues, and opens the user's turn with the
family's one-line instruction. Where the prefill starts is the family's choice: its last line
(`last_line`: the copies, lookups and SQuAD), or everything after the prompt's first block
(`after_first_block`: the phone book, whose two example lookups then read as the model's own,
which SmolLM2 135M Instruct follows far better than examples in the user's turn). The docs are
the same: nothing else is added. A prompt of one line (the lookups' `paper` format) has no
given start and no prefill.

    >>> book = "Ann Lee: 6093237777\\nBo Ray: 7000000001\\n\\nBo Ray: 7000000001\\n\\nAnn Lee:"
    >>> chat = chat_prompt(book, "Give the number.")
    >>> chat.user, chat.prefill
    ('Give the number.\\n\\nAnn Lee: 6093237777\\nBo Ray: 7000000001\\n\\nBo Ray: 7000000001', 'Ann Lee:')
    >>> chat_prompt(book, "Look them up.", after_first_block).prefill
    'Bo Ray: 7000000001\\n\\nAnn Lee:'
    >>> given_start("$abc|b"), given_start("the cat\\n\\nthe"), given_start(book)
    ('', 'the', 'Ann Lee:')

Reading (`readings`): an answer may restate the given start before the answer proper (chat
models do so when their turn starts afresh); our rule reads it with and without that
restatement, and a family's scorer takes the better reading. The authors' rule reads the
answer as written.

    >>> readings(" Ann Lee: 6093237777", "Ann Lee:"), readings(" 6093237777", "Ann Lee:")
    ([' Ann Lee: 6093237777', ' 6093237777'], [' 6093237777'])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ChatPrompt:
    """A doc as a chat: the user's turn, and the start of the assistant's (may be empty)."""

    user: str
    prefill: str


def last_line(prompt: str) -> int:
    """Where the prompt's last line starts (its length for a one-line prompt: no prefill)."""
    return prompt.rindex("\n") + 1 if "\n" in prompt else len(prompt)


def after_first_block(prompt: str) -> int:
    """Where the text after the prompt's first blank line starts (else: its last line)."""
    return prompt.index("\n\n") + 2 if "\n\n" in prompt else last_line(prompt)


def given_start(prompt: str) -> str:
    """The start of the answer the prompt gives: its last line ("" for a one-line prompt)."""
    return prompt[last_line(prompt):]


def chat_prompt(prompt: str, instruction: str, prefill_at: Callable[[str], int] = last_line) -> ChatPrompt:
    """The chat form of a prompt: the instruction, a blank line and the prompt up to
    `prefill_at(prompt)` as the user's turn; the rest, which ends with the given start, as
    the assistant's prefill."""
    at = prefill_at(prompt)
    body = prompt[:at].rstrip("\n")
    return ChatPrompt(f"{instruction}\n\n{body}", prompt[at:])


def readings(generation: str, start: str) -> list[str]:
    """The readings of an answer: as written, then (when it begins with the given start,
    after spaces) what follows the restated start."""
    restated = generation.lstrip()
    if start and restated.startswith(start):
        return [generation, restated[len(start):]]
    return [generation]


def restated_answers(answers, start: str) -> tuple[str, ...]:
    """The accepted answers, each also with the given start restated before it (what a
    generation budget must fit).

    >>> restated_answers((" 6093237777",), "Ann Lee:")
    (' 6093237777', 'Ann Lee: 6093237777')
    """
    return (*answers, *(start + answer for answer in answers if start))
