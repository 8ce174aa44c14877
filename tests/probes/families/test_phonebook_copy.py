"""The phone-book generator and its scoring."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.phonebook_copy import make_phonebook_doc, score_authors, score_generation
from copy_tasks.probes.seeding import doc_rng
from copy_tasks.probes.task_docs import generate_docs


def book_lines(doc: dict) -> list[str]:
    return doc["prompt"].split("\n\n")[0].split("\n")


def doc_hash(doc: dict) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize("entries", [3, 20, 50, 100, 200, 500, 1000])
def test_book_has_the_promised_entries_and_format(entries):
    for doc in generate_docs("phonebook_copy", entries, 1234, 5):
        lines = book_lines(doc)
        assert len(lines) == entries
        for line in lines:
            name, number = line.split(": ")
            assert len(name.split(" ")) == 2
            assert len(number) == 10 and number.isdigit() and number[0] in "6789"


def test_prompt_is_book_two_examples_then_query():
    doc = generate_docs("phonebook_copy", 50, 1234, 1)[0]
    book, examples, query = doc["prompt"].split("\n\n")
    lines = book.split("\n")
    query_line = lines[doc["query_position"]]
    assert query == query_line.split(": ")[0] + ":"
    assert query_line.endswith(": " + doc["target"])
    assert examples.split("\n") == [lines[i] for i in doc["example_positions"]]
    assert doc["continuation"] == " " + doc["target"]
    assert doc["query_depth"] == doc["query_position"] / 49


def test_query_is_never_an_example_and_depth_spans_the_book():
    docs = generate_docs("phonebook_copy", 20, 99, 2000)
    positions = {doc["query_position"] for doc in docs}
    for doc in docs:
        assert doc["query_position"] not in doc["example_positions"]
        assert len(set(doc["example_positions"])) == 2
    assert positions == set(range(20))


def test_names_and_numbers_unique_in_10000_books():
    sizes = [20, 50, 100, 200]
    for index in range(10_000):
        entries = sizes[index % len(sizes)]
        lines = book_lines(make_phonebook_doc(doc_rng("uniqueness", "1", entries, 7, index), entries))
        names = [line.split(": ")[0] for line in lines]
        numbers = [line.split(": ")[1] for line in lines]
        assert len(set(names)) == entries and len(set(numbers)) == entries


def test_names_follow_census_frequencies():
    docs = generate_docs("phonebook_copy", 1000, 5, 3)
    lasts = [line.split(": ")[0].split(" ")[1] for doc in docs for line in book_lines(doc)]
    # Smith is 1.006% of the census' last names: about 30 of 3000, never absent.
    assert 10 <= lasts.count("Smith") <= 60
    assert lasts.count("Smith") > lasts.count("Miller") / 3


# Golden hashes: a change here means every published score stops being comparable, so it
# must come with a bump of the family's metadata.version and a README changelog entry.
# (Changed once before release: the teacher-forced continuation lost its newline; see the
# family README's changelog.)
GOLDEN = {
    (20, 0): "eaacb4882ff4a821",
    (20, 1): "6e787ef2d11c8d3b",
    (1000, 7): "a09ea1e1da2e289b",
}


@pytest.mark.parametrize(("entries", "index"), sorted(GOLDEN))
def test_golden_docs(entries, index):
    doc = generate_docs("phonebook_copy", entries, 1234, index + 1)[index]
    assert doc_hash(doc) == GOLDEN[(entries, index)]


@pytest.mark.parametrize(
    ("generation", "exact", "prefix", "authors"),
    [
        (" 6093237777\nMary Jones: 7123456789", 1.0, 1.0, 1.0),  # trailing text after the newline
        (" 6093237777", 1.0, 1.0, 1.0),  # no newline
        ("6093237777\n", 1.0, 1.0, 1.0),  # no leading space
        ("   6093237777  \n", 1.0, 1.0, 1.0),  # extra spaces
        (" 609-323-7777\n", 0.0, 0.3, 0.0),  # dashes: not the book's number
        (" 6093237777 (home)\n", 1.0, 1.0, 0.0),  # trailing text on the answer line: only the authors mind
        (" 60932377771\n", 0.0, 1.0, 0.0),  # an eleventh digit: another number
        (" 6093237770\n", 0.0, 0.9, 0.0),  # last digit wrong
        (" 609323777\n", 0.0, 0.9, 0.0),  # one digit short
        ("", 0.0, 0.0, 0.0),  # empty output
        ("\n6093237777", 0.0, 0.0, 0.0),  # answer after a blank first line
        (" 7093237777\n", 0.0, 0.0, 0.0),  # first digit wrong
    ],
)
def test_scoring_hand_worked(generation, exact, prefix, authors):
    assert score_generation(generation, "6093237777") == {"exact_match": exact, "prefix_match": prefix}
    assert score_authors(generation, "6093237777") == {"authors_exact_match": authors}


@settings(max_examples=200, deadline=None)
@given(entries=st.integers(3, 300), seed=st.integers(0, 2**63), index=st.integers(0, 10**6))
def test_every_doc_is_unambiguous(entries, seed, index):
    rng = doc_rng("phonebook_copy", FAMILIES["phonebook_copy"].data_version, entries, seed, index)
    doc = make_phonebook_doc(rng, entries)
    lines = book_lines(doc)
    names = [line.split(": ")[0] for line in lines]
    assert len(lines) == entries and len(set(names)) == entries
    query_name = doc["prompt"].rsplit("\n\n", 1)[1]
    assert query_name == names[doc["query_position"]] + ":"
    assert names.count(query_name[:-1]) == 1
    assert lines[doc["query_position"]] == f"{query_name} {doc['target']}"
    assert doc["query_position"] not in doc["example_positions"]
