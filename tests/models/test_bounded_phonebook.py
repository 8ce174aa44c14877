"""The bounded-state reader of phone books: its bits counted and never above B, its answer a
function of its state, which entries it keeps (worked by hand), and on the families: with the
name last right exactly when the asked entry is among the first `entries_kept(B)`, with the
name first right at every length from 104 bits."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.models.bounded_pairs import DIGIT_BITS
from copy_tasks.models.bounded_phonebook import (
    FINGERPRINT_BITS,
    FIXED_CONTROL_BITS,
    NAME_FIRST_BITS,
    PhoneBookReader,
    entries_kept,
    entry_bits,
    fingerprint,
    resting_bits,
)
from copy_tasks.models.bounded_readers import bounded_state_read
from copy_tasks.models.bounded_state import MIN_BITS, READER_CHOICE_BITS, StateOverflow
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs

BOOK = "Ann Lee: 6093237777\nBo Ray: 7000000001\nCy Hu: 8123456789\nDee Fox: 9000000002\n"
EXAMPLES = "\nBo Ray: 7000000001\nDee Fox: 9000000002\n\n"


def ask(name: str, bits: int, first: bool = False) -> PhoneBookReader:
    """The reader after a prompt in the families' form asking for `name` (told first or not)."""
    lead = f"Look up {name}.\n\n" if first else ""
    return PhoneBookReader(bits).read(f"{lead}{BOOK}{EXAMPLES}{name}:")


def kept_numbers(reader: PhoneBookReader) -> list[str]:
    return list(reader.kept.values.values())


# ---- which entries it keeps, worked by hand ------------------------------------------------
# Control: log2(5) = 2.32 bits for the reader's choice, 5 flags, log2(11) = 3.46 for the lead's `Look up `,
# log2(3) = 1.58 for the name given first: 12.37. Between lines the line's fingerprint (24) and
# its empty number's counter (1); the kept entries' counter (1 bit for 0 or 1, 2 for 2 or 3) and
# the last number's length (1 bit for none, 4 for 10). An entry: 24 + 10 x 3.32 + 4 = 61.22.

def test_the_control_registers_and_an_entry_cost_what_the_module_says():
    assert READER_CHOICE_BITS == math.log2(5)
    assert FIXED_CONTROL_BITS == pytest.approx(math.log2(5) + 5 + math.log2(11) + math.log2(3))
    assert entry_bits(10) == pytest.approx(24 + 10 * math.log2(10) + 4)
    assert resting_bits(1) == pytest.approx(12.366 + 24 + 1 + 1 + 61.219 + 4, abs=1e-3)  # 103.59
    assert resting_bits(2) == pytest.approx(12.366 + 24 + 1 + 2 + 2 * 61.219 + 4, abs=1e-3)  # 165.81


@pytest.mark.parametrize(("bits", "kept"), [
    (103, []),  # one entry needs 103.59 bits
    (104, ["6093237777"]),
    (165, ["6093237777"]),  # two need 165.81
    (166, ["6093237777", "7000000001"]),
    (256, ["6093237777", "7000000001", "8123456789"]),  # three need 227.02, four 289.24
    (290, ["6093237777", "7000000001", "8123456789", "9000000002"]),
])
def test_with_the_name_last_it_keeps_the_books_first_entries_that_fit(bits, kept):
    reader = ask("Cy Hu", bits)
    assert kept_numbers(reader) == kept
    assert len(kept) == entries_kept(bits)
    assert (reader.answer() == " 8123456789") == (len(kept) >= 3)  # Cy Hu is the third entry


def test_with_the_name_first_it_keeps_only_that_entry_from_104_bits():
    # watched: 12.37 + 24 (line) + 1 + 24 (the name) + 1 + 1 = 63.37; its number read: + 33.22
    # + 3 = 99.59; kept (the name's fingerprint now the entry's key): 103.59
    assert NAME_FIRST_BITS == pytest.approx(resting_bits(1))
    for bits in (104, 128, 4096):
        reader = ask("Cy Hu", bits, first=True)
        assert reader.kept.values == {fingerprint("Cy Hu"): "8123456789"}
        assert reader.answer() == " 8123456789"
        assert reader.peak_bits == pytest.approx(103.586, abs=1e-3)


@pytest.mark.parametrize(("bits", "target_state"), [
    (63, "none"),  # the name given does not fit beside the line: not kept; read with the name last
    (64, "watched"),  # kept, but its number then does not fit: dropped as it is read
    (103, "watched"),
])
def test_a_name_given_first_in_too_small_a_state_answers_nothing(bits, target_state):
    reader = ask("Cy Hu", bits, first=True)
    assert reader.target_state == target_state
    assert kept_numbers(reader) == []
    assert reader.answer() != " 8123456789"


def test_the_asked_name_is_the_last_lines_up_to_its_colon_and_the_examples_are_forgotten():
    reader = ask("Bo Ray", 4096)
    assert kept_numbers(reader) == ["6093237777", "7000000001", "8123456789", "9000000002"]  # the examples not again
    assert reader.name == fingerprint("Bo Ray") and reader.answer() == " 7000000001"


def test_a_name_not_kept_gets_a_guess_of_the_last_kept_numbers_length_else_ten_digits():
    assert len(ask("Dee Fox", 104).answer()) == 11  # " " and 10 digits, as the kept number has
    assert ask("Dee Fox", 104).answer() != " 9000000002"
    assert ask("Bo Ray", 64).answer().strip().isdigit() and len(ask("Bo Ray", 64).answer()) == 11


def test_lines_that_are_not_entries_are_dropped_and_keep_nothing():
    prompt = "Ann Lee: 6093237777\nDr. Who: 7000000001\nCy Hu: 812-345\nLook up Bo Ray.\n\nCy Hu:"
    reader = PhoneBookReader(4096).read(prompt)
    assert kept_numbers(reader) == ["6093237777"]
    assert reader.target_state == "none"  # a lead after the book has begun is not the name given first


def test_storing_beyond_b_is_an_error_not_a_silent_overflow():
    reader = PhoneBookReader(MIN_BITS)
    reader.kept.values[1], reader.kept.stored_bits = "6093237777", entry_bits(10)
    with pytest.raises(StateOverflow, match="exceeds B"):
        reader._measure()


# ---- properties: bits counted and never above B, answers a function of the state ------------
names = st.builds(lambda first, last: f"{first} {last}",
                  st.sampled_from(["Ann", "Bo", "Cy", "Dee", "Eve", "Lookman"]),
                  st.sampled_from(["Lee", "Ray", "Hu", "Fox", "Up"]))
numbers = st.text("0123456789", min_size=1, max_size=12)
lines = st.one_of(
    st.builds(lambda name, number: f"{name}: {number}", names, numbers),  # an entry
    st.builds(lambda name: f"Look up {name}.", names),  # a lead
    names.map(lambda name: f"{name}:"),  # a question
    st.text("abcLkoup :.-0123456789 ", max_size=20),  # anything else
    st.just(""),  # a blank line (after a line)
)
prompts = st.lists(lines, max_size=14).map("\n".join)


def counted_bits(reader: PhoneBookReader) -> float:
    """The reader's state counted again from its registers: control, the line's fingerprint and
    digits, the name watched for, and every kept entry at what its digits cost."""
    kept = reader.kept.values
    return (FIXED_CONTROL_BITS + FINGERPRINT_BITS + len(reader.number) * DIGIT_BITS
            + max(1, len(reader.number).bit_length()) + FINGERPRINT_BITS * (reader.target_state == "watched")
            + max(1, len(kept).bit_length()) + sum(entry_bits(len(number)) for number in kept.values())
            + max(1, reader.kept.last_value_length.bit_length()))


@settings(max_examples=300, deadline=None)
@given(prompt=prompts, bits=st.integers(MIN_BITS, 700))
def test_every_register_is_counted_and_the_state_never_exceeds_b(prompt, bits):
    reader = PhoneBookReader(bits)
    for char in prompt:  # read one character at a time: the state after each is the stream's
        reader.read(char)
        assert reader.state_bits() == pytest.approx(counted_bits(reader))
        assert reader.state_bits() <= bits
    assert reader.peak_bits <= bits
    assert all(0 <= key < 2**FINGERPRINT_BITS for key in reader.kept.values)
    assert PhoneBookReader(bits).read(prompt).state_key() == reader.state_key()  # one pass, as streamed


@settings(max_examples=200, deadline=None)
@given(first=prompts, second=prompts, ending=st.sampled_from(["", "\n\nAnn Lee:", "\n\nBo Ray:"]),
       bits=st.sampled_from([64, 128, 256, 700]))
def test_two_streams_that_leave_the_same_state_get_the_same_answer(first, second, ending, bits):
    one, two = (PhoneBookReader(bits).read(prompt + ending) for prompt in (first, second))
    if one.state_key() == two.state_key():
        assert one.answer() == two.answer()


def test_books_that_differ_only_in_entries_not_kept_leave_one_state_and_one_answer():
    """At 166 bits it keeps Ann Lee and Bo Ray: the numbers of Cy Hu and Dee Fox leave no trace."""
    other = BOOK.replace("9000000002", "6666666666").replace("Cy Hu: 8123456789", "Cy Hu: 8000000000")
    for asked in ("Cy Hu", "Dee Fox", "Ann Lee"):
        one = PhoneBookReader(166).read(f"{BOOK}{EXAMPLES}{asked}:")
        two = PhoneBookReader(166).read(f"{other}{EXAMPLES}{asked}:")
        assert one.state_key() == two.state_key() and one.answer() == two.answer()
    changed_kept = BOOK.replace("7000000001", "7000000009")
    assert PhoneBookReader(166).read(f"{changed_kept}{EXAMPLES}Bo Ray:").answer() == " 7000000009"


# ---- on the families' docs ----------------------------------------------------------------
def right(family: str, bits: int, doc: dict) -> float:
    reader = bounded_state_read(doc["prompt"], bits)
    assert isinstance(reader, PhoneBookReader) and reader.peak_bits <= bits
    return FAMILIES[family].score_one_reading(reader.answer(), doc)["exact_match"]


@pytest.mark.parametrize("bits", [64, 256, 1024, 4096])
def test_with_the_name_last_a_question_is_right_exactly_when_its_entry_was_kept(bits):
    kept = entries_kept(bits)
    for entries in (10, 20, 70, 100):
        for doc in generate_docs("phonebook_copy", entries, 1234, 25):
            assert right("phonebook_copy", bits, doc) == float(doc["query_position"] < kept), (entries, doc["prompt"])


def test_with_the_name_first_every_question_is_right_at_every_length_from_104_bits():
    for entries in FAMILIES["phonebook_query_first"].lengths:
        for doc in generate_docs("phonebook_query_first", entries, 1234, 3 if entries > 200 else 10):
            assert right("phonebook_query_first", 104, doc) == 1.0, entries
            assert right("phonebook_query_first", 103, doc) == 0.0, entries
