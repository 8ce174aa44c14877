"""The phone book with the name first: the same books as `phonebook_copy`, one lead line more."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.chat import chat_prompt
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.phonebook_query_first import after_book, queried_name
from copy_tasks.probes.task_docs import generate_docs

QUERY_FIRST = FAMILIES["phonebook_query_first"]


@settings(max_examples=40, deadline=None)
@given(entries=st.sampled_from(QUERY_FIRST.lengths[:6]), seed=st.integers(0, 2**32 - 1), docs=st.integers(1, 6))
def test_each_doc_is_the_phonebook_doc_with_the_name_before_the_book(entries, seed, docs):
    for first, last in zip(generate_docs("phonebook_query_first", entries, seed, docs),
                           generate_docs("phonebook_copy", entries, seed, docs)):
        name = queried_name(last["prompt"])
        assert first["prompt"] == f"Look up {name}.\n\n" + last["prompt"]
        assert {key: value for key, value in first.items() if key not in ("prompt", "family")} == \
               {key: value for key, value in last.items() if key not in ("prompt", "family")}
        book = last["prompt"].split("\n\n")[0].split("\n")
        assert book[first["query_position"]] == f"{name}: {first['target']}"
        assert first["prompt"].count(f"{name}:") == 2  # the book's line and the question; the lead has no colon


def test_docs_are_the_same_in_fresh_processes_under_other_hash_seeds():
    code = ("import json; from copy_tasks.probes.task_docs import generate_docs; "
            "print(json.dumps([d['prompt'] for d in generate_docs('phonebook_query_first', 20, 7, 3)]))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": hash_seed, "PATH": ""}).stdout for hash_seed in ("0", "1")}
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [doc["prompt"] for doc in generate_docs("phonebook_query_first", 20, 7, 3)]


@pytest.mark.parametrize(("generation", "exact", "authors"), [
    (" 9838041787", 1.0, 1.0),
    (" 9838041787 Ann Lee", 1.0, 0.0),       # our rule reads the leading number; the authors' the line
    ("Pamela Cookson: 9838041787", 1.0, 0.0),  # a restatement of the question, then the number
    (" 983804178", 0.0, 0.0),
])
def test_it_is_scored_as_the_phone_book_is(generation, exact, authors):
    doc = {"prompt": "Look up Pamela Cookson.\n\nPamela Cookson: 9838041787\n\nPamela Cookson:",
           "target": "9838041787", "continuation": " 9838041787"}
    scores = QUERY_FIRST.score_both_rules(generation, doc)
    assert (scores["exact_match"], scores["authors_exact_match"]) == (exact, authors)
    assert scores == FAMILIES["phonebook_copy"].score_both_rules(generation, doc)


def test_under_a_chat_template_the_lead_and_the_book_are_the_users_turn():
    doc = generate_docs("phonebook_query_first", 10, 1234, 1)[0]
    book, examples, query = doc["prompt"].split("\n\n")[1:]
    chat = chat_prompt(doc["prompt"], QUERY_FIRST.chat_instruction, after_book)
    assert chat == QUERY_FIRST.chat_form(doc)
    assert chat.user.endswith(book) and f"Look up {queried_name(doc['prompt'])}." in chat.user
    assert chat.prefill == f"{examples}\n\n{query}"
