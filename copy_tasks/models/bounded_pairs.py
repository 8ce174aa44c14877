"""The bounded-state copier's reader of key-value lines (`mqar`): it keeps the pairs that fit.

`bounded_state` reads a prompt whose first line is `{letters}: {digits}` with this reader (its
four readers: `copy_tasks.models.bounded_readers`; which of the four is log2(4) = 2 bits of
control). The prompt streams through once, a character at a time, and the state is measured
after every change (`state_bits`):
- control registers: which reader (2.32 bits), the queries begun, a value begun, the line lost
  (3 flags), the class of the previous character (newline, other: 1 bit): `FIXED_CONTROL_BITS` = 6;
- the line being read: its key's letters (log2(26) = 4.70 bits each) and its value's digits
  (log2(10) = 3.32 bits each), each with a length counter (the bits of its value, at least 1);
- the stored pairs (`KeptPairs`): each its letters and digits and their two length counters, a
  counter of how many pairs are stored, and one of the last stored value's length.

Its policy: before the first blank line, each line is a pair; a pair is stored when its line
ends, if with it stored a line like it still fits (room to read the queries), else it is lost,
so it keeps the first pairs, as many as fit (`capacity`); a line whose key or value does not fit
while it is read is lost too. After the blank line the
queries come: lines already answered are read and forgotten; the last line's key is the query.
Answering: the stored value of that key, or a guess of the length of the last value stored (4
digits if none), seeded by the state, as `BoundedStateReader` guesses. So a query is answered
right when its pair is among the first `capacity(bits)` (or by a guess, with probability
10^-digits): on K pairs, a fraction min(1, capacity / K) of uniformly drawn queries.

    >>> prompt = "ab: 12\\ncd: 34\\nef: 56\\n\\ncd: 34\\nab:"
    >>> reader = PairsReader(80).read(prompt)
    >>> reader.pairs, reader.answer()
    ({'ab': '12', 'cd': '34'}, ' 12')
    >>> capacity(80, 2, 2)
    2
"""

from __future__ import annotations

import math
import random
import re

from copy_tasks.models.bounded_state import LETTER_BITS, LETTERS, READER_CHOICE_BITS, MeasuredState, counter_bits

DIGIT_BITS = math.log2(10)
FIXED_CONTROL_BITS = READER_CHOICE_BITS + 3 + 1  # which reader; queries, value, lost flags; the last character's class
GUESSED_DIGITS = 4  # the length of a guessed value when no pair is stored
PAIR_LINE = re.compile(r"[a-z]+: \d+\n")


def reads_as_pairs(prompt: str) -> bool:
    """Whether `bounded_state` reads `prompt` with this reader: its first line is a pair.

    >>> reads_as_pairs("ab: 12\\ncd: 34\\n\\nab:"), reads_as_pairs("Ann Lee: 6093237777\\n\\nAnn Lee:")
    (True, False)
    """
    return PAIR_LINE.match(prompt) is not None


def pair_bits(letters: int, digits: int) -> float:
    """What one stored pair costs: its letters, digits and their two length counters."""
    return letters * LETTER_BITS + digits * DIGIT_BITS + counter_bits(letters) + counter_bits(digits)


def capacity(bits: int, letters: int, digits: int) -> int:
    """The most pairs of `letters`-letter keys and `digits`-digit values a state of `bits` bits
    stores: with m of them stored (its control, the pair counter, the m pairs, the last value's
    length) a line like theirs, a query's, still fits.

    >>> capacity(256, 4, 4), capacity(1024, 4, 4), capacity(10, 4, 4)
    (5, 25, 0)
    """
    def reading_a_line(m: int) -> float:  # m pairs stored, and a line like theirs being read
        return FIXED_CONTROL_BITS + counter_bits(m) + (m + 1) * pair_bits(letters, digits) + counter_bits(digits)

    m = 0
    while reading_a_line(m + 1) <= bits:
        m += 1
    return m


class KeptPairs:
    """The pairs a reader keeps (keys to digits), with what they cost: each its own cost (the
    reader's count: `pair_bits` here), a counter of how many, and a counter of the last kept
    value's length (the length of a guess). Shared by this reader and the phone book's.

        >>> kept = KeptPairs()
        >>> kept.keep("ab", "12", pair_bits(2, 2), fits=lambda: True), round(kept.bits(), 2)
        (True, 23.04)
        >>> kept.keep("cd", "34", pair_bits(2, 2), fits=lambda: False), kept.values
        (False, {'ab': '12'})
    """

    def __init__(self) -> None:
        self.values: dict = {}
        self.stored_bits = 0.0  # what the kept pairs cost, summed
        self.last_value_length = 0

    def bits(self) -> float:
        return counter_bits(len(self.values)) + self.stored_bits + counter_bits(self.last_value_length)

    def keep(self, key, value: str, cost: float, fits) -> bool:
        """Keep the pair if, kept, the reader's state still `fits()`; else leave all as it was."""
        before = self.stored_bits, self.last_value_length
        self.values[key], self.stored_bits, self.last_value_length = value, self.stored_bits + cost, len(value)
        if fits():
            return True
        del self.values[key]
        self.stored_bits, self.last_value_length = before
        return False

    def answer(self, key, guesser: random.Random, guessed_digits: int) -> str:
        """The value kept for `key`, else digits drawn by `guesser` (the reader's state seeds
        it), as many as the last value kept had (`guessed_digits` if none)."""
        if key in self.values:
            return " " + self.values[key]
        digits = self.last_value_length or guessed_digits
        return " " + "".join(guesser.choice("0123456789") for _ in range(digits))


class PairsReader(MeasuredState):
    """Streams one prompt of key-value lines through a state of at most `bits` bits; then `answer()`."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.kept = KeptPairs()
        self.key, self.value = "", ""  # the line being read
        self.queries = self.in_value = self.lost = False
        self.previous_newline = True
        self.peak_bits = self.state_bits()
        if self.peak_bits > bits:
            raise ValueError(f"bits={bits}: the key-value reader needs at least {math.ceil(self.peak_bits)} bits")

    @property
    def pairs(self) -> dict[str, str]:
        return self.kept.values

    def state_bits(self) -> float:
        line = (len(self.key) * LETTER_BITS + counter_bits(len(self.key))
                + len(self.value) * DIGIT_BITS + counter_bits(len(self.value)))
        return FIXED_CONTROL_BITS + self.kept.bits() + line

    def _extend(self, register: str, char: str) -> None:
        """Add `char` to the key or value being read if it fits; else the line is lost."""
        setattr(self, register, getattr(self, register) + char)
        if self.state_bits() > self.bits:
            setattr(self, register, getattr(self, register)[:-1])
            self.key, self.value, self.lost = "", "", True
        self._measure()

    def _end_line(self) -> None:
        key, value = self.key, self.value
        self.key, self.value, self.in_value = "", "", False
        if not (self.queries or self.lost) and key and value and key not in self.pairs:
            cost = pair_bits(len(key), len(value))
            # kept if, with it kept, a line like it (a query's) can still be read
            self.kept.keep(key, value, cost, fits=lambda: self.state_bits() + cost <= self.bits)
        self.lost = False
        self._measure()

    def read(self, text: str) -> PairsReader:
        for char in text:
            if char == "\n":
                if self.previous_newline:
                    self.queries = True
                else:
                    self._end_line()
            elif self.lost:
                pass
            elif char == ":" and not self.in_value:
                self.in_value = True
            elif char == " ":
                pass
            elif self.in_value and char.isdigit():
                self._extend("value", char)
            elif not self.in_value and char in LETTERS:
                self._extend("key", char)
            else:  # not a key-value line
                self.key, self.value, self.lost = "", "", True
            self.previous_newline = char == "\n"
        return self

    def state_key(self) -> tuple:
        return (self.queries, self.in_value, self.lost, self.previous_newline, self.key, self.value,
                self.kept.last_value_length, tuple(self.pairs.items()))

    def answer(self) -> str:
        """The value of the key being read (the query), from the state alone."""
        return self.kept.answer(self.key, self.guesser(), GUESSED_DIGITS)
