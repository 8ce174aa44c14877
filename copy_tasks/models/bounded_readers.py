"""Which of its readers `bounded_state` reads a prompt with: chosen from the prompt's first
line, a control register of log2(5) = 2.32 bits (`bounded_state.READER_CHOICE_BITS`) that the
key-value, number, phone-book and flip-flop readers count.

    >>> [type(reader_for(prompt, 128)).__name__ for prompt in ("ab: 12\\n\\nab:", "Ann Lee: 6093237777\\n",
    ...                                                       "a b\\n\\na b\\n\\na")]
    ['PairsReader', 'PhoneBookReader', 'BoundedStateReader']
    >>> bounded_state_read("Look up Ann Lee.\\n\\nAnn Lee: 6093237777\\n\\nAnn Lee:", 128).answer()
    ' 6093237777'
"""

from __future__ import annotations

from copy_tasks.models.bounded_flip_flop import FlipFlopReader, reads_as_flip_flop
from copy_tasks.models.bounded_number import PasskeyReader, reads_as_passkey
from copy_tasks.models.bounded_pairs import PairsReader, reads_as_pairs
from copy_tasks.models.bounded_phonebook import PhoneBookReader, reads_as_phonebook
from copy_tasks.models.bounded_state import BoundedStateReader, MeasuredState

# The readers' version, raised whenever what a reader keeps or how it counts its bits changes:
# runs record it (`reference_lm.BoundedStateLM`) and its response cache is kept apart by it.
# 1 (unrecorded): three readers; 2: the phone-book reader, and the choice among four readers; 3: the
# flip-flop reader, and the choice among five (the other readers' states 0.32 bits larger; the
# copier's, `BoundedStateReader`, does not count the choice, so its answers are those of 2).
VERSION = 3
# Each reader with the test of a prompt's first line that picks it; `BoundedStateReader` reads the rest.
READERS = ((reads_as_pairs, PairsReader), (reads_as_passkey, PasskeyReader), (reads_as_phonebook, PhoneBookReader),
           (reads_as_flip_flop, FlipFlopReader))


def reader_for(prompt: str, bits: int) -> MeasuredState:
    """A fresh reader of `bits` bits for `prompt`."""
    reader = next((reader for reads, reader in READERS if reads(prompt)), BoundedStateReader)
    return reader(bits)


def bounded_state_read(prompt: str, bits: int) -> MeasuredState:
    """`prompt` read by the reader it picks, with a state of `bits` bits (then `.answer()`)."""
    return reader_for(prompt, bits).read(prompt)
