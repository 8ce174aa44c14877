"""The chat form of a doc and the readings of an answer (`copy_tasks.probes.chat`): a prompt
is split at its last line (or after its first block) into the user's turn, opened by the
instruction, and the assistant's prefill, with nothing added or lost; an answer that restates
the given start is also read without it, and the accepted answers come with and without it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.chat import (
    ChatPrompt,
    after_first_block,
    chat_prompt,
    given_start,
    last_line,
    readings,
    restated_answers,
)

LOOKUP = "String: a b c d\nKey: [b c]\nContinuation: b c"
COPY = "the cat sat\n\nthe cat sat\n\nthe"
ONE_LINE = "$abc|b"


@pytest.mark.parametrize(("prompt", "last", "after_block"), [
    ("ab\ncd", 3, 3),
    ("a\n\nb\nc", 5, 3),
    ("a\n\nb\n\nc:", 6, 3),  # the first blank line, not the last
    (ONE_LINE, 6, 6),  # one line: at its end, so no prefill
    ("ends with a newline\n", 20, 20),
])
def test_where_the_prefill_starts(prompt, last, after_block):
    assert last_line(prompt) == last
    assert after_first_block(prompt) == after_block


def test_a_lookup_prompt_ends_in_the_assistants_turn_with_its_last_line():
    assert chat_prompt(LOOKUP, "Continue the key.") == ChatPrompt(
        "Continue the key.\n\nString: a b c d\nKey: [b c]", "Continuation: b c")
    assert given_start(LOOKUP) == "Continuation: b c"


def test_the_blank_line_before_the_prefill_is_not_kept_in_the_users_turn():
    assert chat_prompt(COPY, "Copy it.") == ChatPrompt("Copy it.\n\nthe cat sat\n\nthe cat sat", "the")


def test_after_the_first_block_the_later_blocks_go_to_the_prefill():
    assert chat_prompt(COPY, "Copy it.", after_first_block) == ChatPrompt("Copy it.\n\nthe cat sat",
                                                                          "the cat sat\n\nthe")


def test_a_one_line_prompt_has_no_given_start_and_no_prefill():
    assert chat_prompt(ONE_LINE, "Continue.") == ChatPrompt("Continue.\n\n$abc|b", "")
    assert chat_prompt(ONE_LINE, "Continue.", after_first_block).prefill == ""
    assert given_start(ONE_LINE) == ""


@settings(max_examples=60, deadline=None)
@given(prompt=st.text(alphabet="ab :\n", max_size=30), split_at_first_block=st.booleans())
def test_the_chat_form_adds_and_loses_nothing_but_the_newlines_between_the_turns(prompt, split_at_first_block):
    instruction = "Do it."
    chat = chat_prompt(prompt, instruction, after_first_block if split_at_first_block else last_line)
    assert chat.user.startswith(instruction + "\n\n")
    body = chat.user[len(instruction) + 2:]
    assert prompt.startswith(body) and prompt.endswith(chat.prefill)
    assert set(prompt[len(body):len(prompt) - len(chat.prefill)]) <= {"\n"}
    assert not body.endswith("\n")
    if not split_at_first_block:
        assert chat.prefill == given_start(prompt) and "\n" not in chat.prefill


@pytest.mark.parametrize(("generation", "start", "expected"), [
    ("   Continuation: b c d", "Continuation: b c", ["   Continuation: b c d", " d"]),
    ("Ann Lee:", "Ann Lee:", ["Ann Lee:", ""]),  # the start alone: the answer proper is empty
    (" I think Ann Lee: 6093237777", "Ann Lee:", [" I think Ann Lee: 6093237777"]),  # not at the start
    (" Ann Le", "Ann Lee:", [" Ann Le"]),  # only part of the start
    (" ann lee: 6093237777", "Ann Lee:", [" ann lee: 6093237777"]),  # case counts
    (" the cat", "", [" the cat"]),  # a one-line prompt gives no start
])
def test_an_answer_is_also_read_without_a_restated_start(generation, start, expected):
    assert readings(generation, start) == expected


def test_accepted_answers_come_as_given_then_each_after_the_restated_start():
    assert restated_answers((" Denver", " Denver, Colorado"), "Answer:") == (
        " Denver", " Denver, Colorado", "Answer: Denver", "Answer: Denver, Colorado")
    assert restated_answers((" b c",), "") == (" b c",)
