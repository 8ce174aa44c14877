"""The bounded-state copier's reader of flip-flop prompts: it keeps the bit last written.

`bounded_state` reads a prompt whose first line is the flip-flop header
(`copy_tasks.probes.families.flip_flop.HEADER`) with this reader. The prompt streams through
once, and the state is measured after every change (`state_bits`):
- control registers: which reader (log2(5) = 2.32 bits), where in its line the stream is (at a
  line's start, after its letter, after its bit: log2(3) = 1.58 bits), and the letter of the line
  (`w`, `i` or `r`: 1.58 bits);
- the bit last written (1 bit).
Its policy: the bit of a `w` line replaces the bit kept; the answer is the bit kept. One bit is a
summary of the whole prompt, so 6.5 bits read every flip-flop at every length: the control where
a fixed state wins.

    >>> reader = FlipFlopReader(64).read("Each line is an instruction.\\n\\nw 1\\ni 0\\nr 1\\nw 0\\ni 1\\nr")
    >>> reader.kept, reader.answer(), round(reader.peak_bits, 2)
    (0, ' 0', 6.49)
"""

from __future__ import annotations

import math

from copy_tasks.models.bounded_state import READER_CHOICE_BITS, MeasuredState
from copy_tasks.probes.families.flip_flop import HEADER

LETTERS = ("w", "i", "r")
PLACES = ("start", "letter", "bit")  # where in its line the stream is
FIXED_CONTROL_BITS = READER_CHOICE_BITS + math.log2(len(PLACES)) + math.log2(len(LETTERS))
BIT_KEPT = 1


def reads_as_flip_flop(prompt: str) -> bool:
    """Whether `bounded_state` reads `prompt` with this reader: its first line is the flip-flop header.

    >>> reads_as_flip_flop(HEADER + "\\n\\nw 1\\nr"), reads_as_flip_flop("w 1\\nr")
    (True, False)
    """
    return prompt.split("\n", 1)[0] == HEADER


class FlipFlopReader(MeasuredState):
    """Streams one prompt through a state of at most `bits` bits; then `answer()`."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.kept, self.letter = 0, ""
        self.peak_bits = self.state_bits()
        if self.peak_bits > bits:
            raise ValueError(f"bits={bits}: the flip-flop reader needs at least {math.ceil(self.peak_bits)} bits")

    def state_bits(self) -> float:
        return FIXED_CONTROL_BITS + BIT_KEPT

    def state_key(self) -> tuple:
        return self.kept, self.letter

    def read(self, text: str) -> FlipFlopReader:
        """Stream `text` through, line by line (the header's line and the blank one match no
        instruction): a line `w <bit>` sets the bit kept."""
        for line in text.split("\n"):
            parts = line.split(" ")
            self.letter = parts[0] if parts[0] in LETTERS else ""
            if self.letter == "w" and len(parts) == 2 and parts[1] in ("0", "1"):
                self.kept = int(parts[1])
            self._measure()
        return self

    def answer(self) -> str:
        """The bit kept."""
        return f" {self.kept}"
