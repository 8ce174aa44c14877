"""The bounded-state copier's reader of passkey prompts: it keeps the last number it read.

`bounded_state` reads a prompt whose first line is the passkey header
(`copy_tasks.probes.families.passkey_recall.HEADER`) with this reader. The prompt streams
through once, and the state is measured after every change (`state_bits`):
- control registers: which reader (log2(5) = 2.32 bits), whether the last character was a digit
  (1 bit);
- the number kept and the run of digits being read: 3.32 bits a digit, each with a length
  counter (the bits of its value, at least 1).
Its policy: a run of digits replaces the number kept when it ends (if it fits, digit by digit,
else the run is dropped); the answer is the number kept. Remembering one number is a summary
of the input: a 10-digit key needs at most 2.32 + 1 + 2 x (10 x 3.32 + 4) = 77.8 bits, so 128
bits find the passkey at every length.

    >>> reader = PasskeyReader(128).read("Remember it.\\n\\nThe passkey is 4563848. The old road.\\n\\nThe passkey is")
    >>> reader.kept, reader.answer(), round(reader.peak_bits, 1)
    ('4563848', ' 4563848', 30.6)
"""

from __future__ import annotations

import math
import re

from copy_tasks.models.bounded_state import READER_CHOICE_BITS, MeasuredState, counter_bits
from copy_tasks.probes.families.passkey_recall import HEADER

DIGIT_BITS = math.log2(10)
DIGIT_RUN = re.compile(r"[0-9]+")
FIXED_CONTROL_BITS = READER_CHOICE_BITS + 1  # which reader; the last character a digit


def reads_as_passkey(prompt: str) -> bool:
    """Whether `bounded_state` reads `prompt` with this reader: its first line is the passkey header.

    >>> reads_as_passkey("The text below holds a passkey, a number. Remember it.\\n\\nThe road.")
    True
    >>> reads_as_passkey("ab")
    False
    """
    return prompt.split("\n", 1)[0] == HEADER


class PasskeyReader(MeasuredState):
    """Streams one prompt through a state of at most `bits` bits; then `answer()`."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.kept, self.run = "", ""
        self.peak_bits = self.state_bits()
        if self.peak_bits > bits:
            raise ValueError(f"bits={bits}: the number reader needs at least {math.ceil(self.peak_bits)} bits")

    def state_bits(self) -> float:
        return (FIXED_CONTROL_BITS + len(self.kept) * DIGIT_BITS + counter_bits(len(self.kept))
                + len(self.run) * DIGIT_BITS + counter_bits(len(self.run)))

    def read(self, text: str) -> PasskeyReader:
        """Stream `text` through: the state changes only at a digit and at the character after a
        run of digits, so the runs are found with a regular expression and read digit by digit."""
        for run in DIGIT_RUN.finditer(text):
            for digit in run.group():
                self.run += digit
                if self.state_bits() > self.bits:  # no room: the run is dropped
                    self.run = ""
                self._measure()
            if self.run:  # the character after the run (or the end of the text) ends it
                self.kept, self.run = self.run, ""
                self._measure()
        return self

    def answer(self) -> str:
        """The number kept."""
        return " " + self.kept
