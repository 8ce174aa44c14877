"""The n-gram lookup generators (suffix and prefix key) and their scoring."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.lookup import draw_instance, occurs_once, score_lookup
from copy_tasks.probes.seeding import doc_rng
from copy_tasks.probes.task_docs import generate_docs

LENGTHS = FAMILIES["lookup_suffix"].lengths
NATURAL = (("key_length", 4), ("answer_length", 4), ("fmt", "natural"))
PAPER = (("key_length", 4), ("answer_length", 4), ("fmt", "paper"))


def pair(length: int, count: int, options=NATURAL):
    return (generate_docs("lookup_prefix", length, 1234, count, options),
            generate_docs("lookup_suffix", length, 1234, count, options))


@pytest.mark.parametrize("options", [NATURAL, PAPER])
@pytest.mark.parametrize("length", LENGTHS)
def test_prefix_and_suffix_docs_are_paired(length, options):
    for prefix, suffix in zip(*pair(length, 200, options)):
        assert (prefix["string"], prefix["key"], prefix["target"]) == (
            suffix["string"], suffix["key"], suffix["target"])
        assert prefix["prompt"] != suffix["prompt"]


@pytest.mark.parametrize("length", LENGTHS)
def test_key_occurs_once_and_answer_follows_it_in_10000_docs(length):
    for doc in generate_docs("lookup_suffix", length, 1234, 10_000, NATURAL):
        string, key, position = doc["string"], doc["key"], doc["key_position"]
        assert len(string) == length and set(string) <= set("abcdefghijklmnopqrstuvwxyz")
        assert occurs_once(string, key) and string.find(key) == position
        assert doc["target"] == string[position + 4 : position + 8]


def test_demonstrations_leak_nothing_about_the_test_doc():
    for doc in generate_docs("lookup_suffix", 100, 1234, 2000, NATURAL):
        blocks = doc["prompt"].split("\n\n")
        assert len(blocks) == 4
        assert doc["key"] not in doc["demonstration_keys"]
        for block in blocks[:3]:
            demo_string = block.split("\n")[0].removeprefix("String: ").replace(" ", "")
            assert len(demo_string) == 20 and doc["key"] not in demo_string


def test_natural_format_renders_as_specified():
    prefix, suffix = (docs[0] for docs in pair(50, 1))
    spaced = " ".join
    assert suffix["prompt"].split("\n\n")[-1] == (
        f"String: {spaced(suffix['string'])}\nKey: [{spaced(suffix['key'])}]\nContinuation: {spaced(suffix['key'])}")
    assert prefix["prompt"].split("\n\n")[-1] == (
        f"Key: [{spaced(prefix['key'])}]\nString: {spaced(prefix['string'])}\nContinuation: {spaced(prefix['key'])}")
    for block in prefix["prompt"].split("\n\n")[:3]:
        key_line, string_line, answer_line = block.split("\n")
        key, string = key_line[6:-1].replace(" ", ""), string_line[8:].replace(" ", "")
        answer = answer_line.removeprefix("Continuation: ").replace(" ", "")
        assert answer == key + string[string.find(key) + 4 :][:4]  # demonstrations are right too
    assert suffix["continuation"] == " " + spaced(suffix["target"])


def test_paper_format_renders_as_specified():
    prefix, suffix = (docs[0] for docs in pair(50, 1, PAPER))
    assert prefix["prompt"] == f"${prefix['key']}|{prefix['string']}|"
    assert suffix["prompt"] == f"${suffix['string']}|{suffix['key']}"
    assert prefix["continuation"] == suffix["continuation"] == suffix["target"]


def test_options_change_key_and_answer_lengths():
    options = (("key_length", 2), ("answer_length", 7), ("fmt", "paper"))
    for doc in generate_docs("lookup_prefix", 200, 5, 300, options):
        assert len(doc["key"]) == 2 and len(doc["target"]) == 7
        assert occurs_once(doc["string"], doc["key"])


@settings(max_examples=300, deadline=None)
@given(length=st.integers(2, 400), key_length=st.integers(1, 6), answer_length=st.integers(1, 6),
       seed=st.integers(0, 2**32))
def test_any_drawn_instance_is_unambiguous(length, key_length, answer_length, seed):
    if length < key_length + answer_length:
        with pytest.raises(ValueError, match="cannot hold"):
            draw_instance(doc_rng("t", "1", length, seed, 0), length, key_length, answer_length)
        return
    try:
        instance = draw_instance(doc_rng("t", "1", length, seed, 0), length, key_length, answer_length)
    except ValueError as error:
        # Only a 1-letter key can fail (26 letters all recur in long strings), and it says so.
        assert key_length == 1 and length > 100 and "use a longer key" in str(error)
        return
    assert occurs_once(instance.string, instance.key)
    end = instance.key_position + key_length
    assert instance.answer == instance.string[end : end + answer_length]


@pytest.mark.parametrize(
    ("generation", "exact", "symbols"),
    [
        (" a b c d\nString: x", 1.0, 1.0),  # trailing text after the newline
        (" a b c d e f g", 1.0, 1.0),  # copying on past the k letters
        (" a b c d", 1.0, 1.0),  # no newline
        ("abcd.", 1.0, 1.0),  # paper format
        ("  a  b c d  ", 1.0, 1.0),  # whitespace differences
        (" a b c x\n", 0.0, 0.75),  # last letter wrong
        (" a b c\n", 0.0, 0.75),  # one letter short
        (" b c d e\n", 0.0, 0.0),  # shifted by one: no letter at its place
        (" A B C D\n", 0.0, 0.0),  # case matters
        ("", 0.0, 0.0),  # empty output
    ],
)
def test_scoring_hand_worked(generation, exact, symbols):
    assert score_lookup(generation, "abcd") == {"exact_match": exact, "symbol_accuracy": symbols}
