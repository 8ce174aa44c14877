"""The bounded-state copier's reader of key-value lines (`mqar`): it keeps the pairs that fit.

`bounded_state` reads a prompt whose first line is `{letters}: {digits}` with this reader, and
a passkey prompt with `copy_tasks.models.bounded_number`, every other prompt with
`copy_tasks.models.bounded_state.BoundedStateReader`; which of the three is log2(3) bits of
control. The prompt streams through once, a character at a time, and the state is measured
after every change (`state_bits`):
- control registers: which reader (1.58 bits), the queries begun, a value begun, the line lost
  (3 flags), the class of the previous character (newline, other: 1 bit): `FIXED_CONTROL_BITS` = 5.58;
- the line being read: its key's letters (log2(26) = 4.70 bits each) and its value's digits
  (log2(10) = 3.32 bits each), each with a length counter (the bits of its value, at least 1);
- the stored pairs: each its letters and digits and their two length counters, and a counter of
  how many pairs are stored.

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

import hashlib
import math
import random
import re

from copy_tasks.models.bounded_state import LETTER_BITS, LETTERS, READER_CHOICE_BITS, StateOverflow, counter_bits

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


class PairsReader:
    """Streams one prompt of key-value lines through a state of at most `bits` bits; then `answer()`."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.pairs: dict[str, str] = {}
        self.stored_bits = 0.0  # what the stored pairs cost, `pair_bits` summed
        self.key, self.value = "", ""  # the line being read
        self.queries = self.in_value = self.lost = False
        self.previous_newline = True
        self.last_value_length = 0
        self.peak_bits = self.state_bits()
        if self.peak_bits > bits:
            raise ValueError(f"bits={bits}: the key-value reader needs at least {math.ceil(self.peak_bits)} bits")

    def state_bits(self) -> float:
        stored = self.stored_bits
        line = (len(self.key) * LETTER_BITS + counter_bits(len(self.key))
                + len(self.value) * DIGIT_BITS + counter_bits(len(self.value)))
        return (FIXED_CONTROL_BITS + counter_bits(len(self.pairs)) + stored + line
                + counter_bits(self.last_value_length))

    def _measure(self) -> None:
        bits = self.state_bits()
        if bits > self.bits:
            raise StateOverflow(f"state of {bits:.1f} bits exceeds B = {self.bits}")
        self.peak_bits = max(self.peak_bits, bits)

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
            cost, last = pair_bits(len(key), len(value)), self.last_value_length
            self.pairs[key], self.stored_bits, self.last_value_length = value, self.stored_bits + cost, len(value)
            if self.state_bits() + cost > self.bits:  # no room left to read a query
                del self.pairs[key]
                self.stored_bits, self.last_value_length = self.stored_bits - cost, last
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
        """Every register the state holds, as a value (what the answer may depend on)."""
        return (self.queries, self.in_value, self.lost, self.previous_newline, self.key, self.value,
                self.last_value_length, tuple(self.pairs.items()))

    def answer(self) -> str:
        """The value of the key being read (the query), from the state alone."""
        if self.key in self.pairs:
            return " " + self.pairs[self.key]
        guesser = random.Random(hashlib.sha256(repr(self.state_key()).encode()).digest())
        digits = self.last_value_length or GUESSED_DIGITS
        return " " + "".join(guesser.choice("0123456789") for _ in range(digits))
