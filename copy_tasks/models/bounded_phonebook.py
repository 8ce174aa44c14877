"""The bounded-state copier's reader of phone books: it keeps the entries that fit, or, told the
name first, only that entry.

`bounded_state` reads a prompt whose first line is a book entry, `{First} {Last}: {digits}`
(`phonebook_copy`), or the lead `Look up {First} {Last}.` (`phonebook_query_first`), with this
reader. The prompt streams through once, a character at a time, and the state is measured
after every change that can grow it (`state_bits`: a digit read, a line ended):
- control registers: which reader (2.32 bits), five flags (the question part begun, the number
  begun, the line dropped, the last character a newline, the book begun), how far the line
  matches the lead's `Look up ` (11 values: 3.46 bits) and the name given first (none, watched
  for, found: 1.58 bits): `FIXED_CONTROL_BITS` = 12.37;
- the line being read: its name's fingerprint (`FINGERPRINT_BITS` = 24: a hash of the name
  taken character by character, each step a function of the last fingerprint and the character
  alone) and its number's digits (log2(10) = 3.32 bits each) with a length counter (the bits
  of its value, at least 1);
- the name given first, while it is watched for: its fingerprint (24 bits);
- the kept entries (`bounded_pairs.KeptPairs`): each its name's fingerprint, its digits and
  their length counter (a 10-digit entry: 24 + 33.22 + 4 = 61.22 bits), a counter of how many,
  and one of the last kept number's length.

Its policy:
- told a name first (a line `Look up {name}.` before the book), it keeps that name's
  fingerprint if it fits and reads only the entry with the same fingerprint: every other line
  is dropped at its colon; the entry found, its fingerprint becomes the entry's key;
- else it keeps the book's entries from the top while they fit: a line's number is read while
  it fits, the entry kept when its line ends if it fits (`entries_kept`);
- after the book (its blank line) the examples and the question are read and forgotten, but
  for the last line's name up to its colon: the question.
Answering: the number kept under that name's fingerprint, else a guess: uniform digits, as many
as the last kept number had (10 if none), seeded by the state as the other readers' guesses
are (right with probability 10^-10). So with the name last a question is answered right when
its entry is among the first `entries_kept(B)` of the book (min(1, kept / entries) of the
books, the queried entry being uniform); with the name first at every length, from the
103.59 bits that a name watched for and then its 10-digit entry take (`NAME_FIRST_BITS`).
Fingerprints of 24 bits take another name for the asked one with probability 2^-24 a name: a
book of 1,000 entries misleads the name-first reader with probability under 0.006%.

    >>> book = "Ann Lee: 6093237777\\nBo Ray: 7000000001\\nCy Hu: 8123456789\\n\\nBo Ray: 7000000001\\n\\n"
    >>> reader = PhoneBookReader(128).read(book + "Ann Lee:")  # room for one entry: the first
    >>> list(reader.kept.values.values()), reader.answer(), round(reader.peak_bits, 1)
    (['6093237777'], ' 6093237777', 125.5)
    >>> PhoneBookReader(128).read(book + "Cy Hu:").answer()  # not kept: a guess
    ' 0695337404'
    >>> PhoneBookReader(128).read("Look up Cy Hu.\\n\\n" + book + "Cy Hu:").answer()  # kept: told first
    ' 8123456789'
"""

from __future__ import annotations

import hashlib
import math
import re
from functools import reduce

from copy_tasks.models.bounded_pairs import DIGIT_BITS, KeptPairs
from copy_tasks.models.bounded_state import READER_CHOICE_BITS, MeasuredState, counter_bits
from copy_tasks.probes.families.phonebook_query_first import LEAD

LEAD_START, LEAD_END = LEAD.split("{name}")[0], "."  # "Look up ", "."
# The lead register: i < len(LEAD_START) characters of `Look up ` matched, then reading the
# name given, the name ended by its full stop, or not a lead.
READING_LEAD, LEAD_ENDED, NOT_LEAD = len(LEAD_START), len(LEAD_START) + 1, len(LEAD_START) + 2
LEAD_STATES = len(LEAD_START) + 3
TARGET_STATES = ("none", "watched", "found")  # the name given first
FLAGS = 5  # question part begun, number begun, line dropped, last character a newline, book begun
FIXED_CONTROL_BITS = READER_CHOICE_BITS + FLAGS + math.log2(LEAD_STATES) + math.log2(len(TARGET_STATES))
FINGERPRINT_BITS = 24
NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
GUESSED_DIGITS = 10  # the length of a guessed number when none is kept: a phone number's
# Entry lines and the lead, as the phone-book families write them (names are capitalised, which
# sets them apart from `mqar`'s lower-case keys).
ENTRY_LINE = re.compile(r"[A-Z][A-Za-z ]*: \d+\n")
LEAD_LINE = re.compile(re.escape(LEAD_START) + r"[A-Za-z ]+" + re.escape(LEAD_END) + "\n")


def reads_as_phonebook(prompt: str) -> bool:
    """Whether `bounded_state` reads `prompt` with this reader: its first line is an entry or the lead.

    >>> [reads_as_phonebook(p) for p in ("Ann Lee: 6093237777\\n\\nAnn Lee:", "Look up Ann Lee.\\n\\nAnn Lee: 6",
    ...                                  "ab: 12\\n\\nab:", "String: a b\\n")]
    [True, True, False, False]
    """
    return ENTRY_LINE.match(prompt) is not None or LEAD_LINE.match(prompt) is not None


def fingerprint_step(fingerprint: int, char: str) -> int:
    """The fingerprint of a name one character longer: a function of the 24-bit fingerprint so
    far and the character alone (what a streaming state can compute)."""
    data = fingerprint.to_bytes(3, "big") + char.encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=FINGERPRINT_BITS // 8).digest(), "big")


def fingerprint(name: str) -> int:
    """A name's fingerprint, 0 to 2^24 - 1: `fingerprint_step` over its characters from 0.

    >>> fingerprint("Ann Lee") == fingerprint_step(fingerprint("Ann Le"), "e"), fingerprint("") == 0
    (True, True)
    """
    return reduce(fingerprint_step, name, 0)


def entry_bits(digits: int) -> float:
    """What one kept entry costs: its name's fingerprint, its digits and their length counter.

    >>> round(entry_bits(10), 2)
    61.22
    """
    return FINGERPRINT_BITS + digits * DIGIT_BITS + counter_bits(digits)


def resting_bits(entries: int, digits: int = 10, watched: bool = False) -> float:
    """The state between two lines with `entries` kept entries of `digits` digits (and a name
    watched for): control, the line's fingerprint and its empty number's counter, the kept
    entries with their two counters."""
    kept = counter_bits(entries) + entries * entry_bits(digits) + counter_bits(digits if entries else 0)
    return FIXED_CONTROL_BITS + FINGERPRINT_BITS + counter_bits(0) + FINGERPRINT_BITS * watched + kept


def entries_kept(bits: int, digits: int = 10) -> int:
    """How many entries of `digits`-digit numbers the name-last reader keeps in `bits` bits (a
    line's number is read beside the kept entries before it is kept, which takes less).

    >>> [entries_kept(bits) for bits in (64, 128, 256, 512, 1024, 4096)]
    [0, 1, 3, 7, 15, 66]
    """
    kept = 0
    while resting_bits(kept + 1, digits) <= bits:
        kept += 1
    return kept


# The name given first and then its 10-digit entry (the larger of the two states): the least B
# that answers every name-first book.
NAME_FIRST_BITS = max(resting_bits(0, watched=True) + 10 * DIGIT_BITS + counter_bits(10) - counter_bits(0),
                      resting_bits(1))


class PhoneBookReader(MeasuredState):
    """Streams one phone-book prompt through a state of at most `bits` bits; then `answer()`."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.kept = KeptPairs()
        self.target_state, self.target = "none", 0  # the name given first and its fingerprint
        self.queries = self.book = False
        self.previous_newline = True
        self._new_line()
        self.peak_bits = self.state_bits()
        if self.peak_bits > bits:
            raise ValueError(f"bits={bits}: the phone-book reader needs at least {math.ceil(self.peak_bits)} bits")

    def _new_line(self) -> None:
        self.name, self.number, self.lead = 0, "", 0  # fingerprint, digits, lead register
        self.in_value = self.dropped = False

    def state_bits(self) -> float:
        line = FINGERPRINT_BITS + len(self.number) * DIGIT_BITS + counter_bits(len(self.number))
        watched = FINGERPRINT_BITS if self.target_state == "watched" else 0
        return FIXED_CONTROL_BITS + line + watched + self.kept.bits()

    def state_key(self) -> tuple:
        return (self.queries, self.book, self.previous_newline, self.in_value, self.dropped, self.lead,
                self.target_state, self.target, self.name, self.number, self.kept.last_value_length,
                tuple(self.kept.values.items()))

    def read(self, text: str) -> PhoneBookReader:
        for char in text:
            if char == "\n":
                if not self.previous_newline:
                    self._end_line()
                elif self.book:  # the blank line after the book
                    self.queries = True
            elif not self.dropped:
                self._line_character(char)
            self.previous_newline = char == "\n"
        return self

    def _line_character(self, char: str) -> None:
        if self.in_value:
            if char.isdigit():
                self._read_digit(char)
            elif char != " ":
                self._drop()
            return
        if self.lead < READING_LEAD:  # matching `Look up `, the name fingerprinted meanwhile
            self.lead = self.lead + 1 if char == LEAD_START[self.lead] else NOT_LEAD
            if self.lead == READING_LEAD:
                self.name = 0  # the name given starts here
                return
        elif self.lead == READING_LEAD and char == LEAD_END:
            self.lead = LEAD_ENDED
            return
        elif self.lead == LEAD_ENDED:  # text after the lead's full stop: neither lead nor entry
            self.lead = NOT_LEAD
            self._drop()
            return
        if char == ":" and self.lead == NOT_LEAD:
            self._colon()
        elif char in NAME_CHARACTERS:
            self.name = fingerprint_step(self.name, char)
        else:
            self._drop()

    def _drop(self) -> None:
        """Nothing more of this line is read (its name, if its colon was read, stays)."""
        self.dropped, self.number = True, ""

    def _colon(self) -> None:
        """The name is read: from here its number, if the policy keeps this entry."""
        self.in_value, self.book = True, self.book or not self.queries
        wanted = {"none": True, "watched": self.name == self.target, "found": False}[self.target_state]
        if self.queries or not wanted:
            self._drop()

    def _read_digit(self, digit: str) -> None:
        self.number += digit
        if self.state_bits() > self.bits:  # no room: the entry cannot be kept
            self._drop()
        self._measure()

    def _end_line(self) -> None:
        name, number, lead = self.name, self.number, self.lead
        entry = self.in_value and not self.dropped and number
        self._new_line()
        fits = lambda: self.state_bits() <= self.bits  # noqa: E731
        if entry and self.target_state == "watched":  # the entry of the name given first
            self.target_state = "found"
            if not self.kept.keep(name, number, entry_bits(len(number)), fits):
                self.target_state = "watched"
        elif entry and name not in self.kept.values:
            self.kept.keep(name, number, entry_bits(len(number)), fits)
        elif lead == LEAD_ENDED and not self.book and self.target_state == "none":  # `Look up {name}.`
            self.target_state, self.target = "watched", name
            if not fits():
                self.target_state, self.target = "none", 0
        self._measure()

    def answer(self) -> str:
        """The number kept for the name asked (the last line's, up to its colon), else a guess."""
        asked = self.name if self.in_value else None
        return self.kept.answer(asked, self.guesser(), GUESSED_DIGITS)
