"""A bounded-state copier: reads the prompt once, left to right, keeping at most B bits.

The paper's fixed-state models (Mamba, LSTMs, linear attention) in their simplest form: the
prompt streams through, one character at a time, and the model answers from its state alone.
Its state is
- a fixed set of control registers (parser phase, flags, one pending letter, counters):
  `CONTROL_BITS` = 40 bits;
- stored letters a-z, log2(26) = 4.70 bits each, as many as fit in the rest of B.
`state_bits()` measures it after every character and `peak_bits` records the most it held;
storing a letter that does not fit is an error, so the bound cannot be broken silently.

Its policy, for the symbol formats of `random_copy` and the lookup families (letters that
stand alone between spaces, or every letter inside the `$...|...|` paper format):
- keep whatever fits: the letters of the first passage or string, from its start;
- a key read before the string (prefix key) is kept, and while the string streams by, a
  window of the last n letters is compared with it; after the match, only the letters that
  follow the key are kept. The window counts against B like any stored letter;
- a lookup block (a line starting with `String:` or `Key:` after a blank line) starts afresh,
  so demonstrations leave nothing behind;
- answering: a copy is the stored letters, then uniform guesses for the letters it could not
  keep (it counted them); a suffix-key lookup searches the stored string for the key; a
  prefix-key lookup gives the letters it kept after the match. Guesses come from a generator
  seeded by the prompt, so answers are deterministic.
So it copies a string of L letters perfectly when L fits, and otherwise only by guessing,
which succeeds with probability 26^-(L - kept) <= 2^B / 26^L: the paper's bound (Theorem 2.7).
Other text (phone books, natural language) is read with the same rules: it keeps the
stand-alone letters it meets and answers with guesses.
"""

from __future__ import annotations

import hashlib
import math
import random

LETTERS = "abcdefghijklmnopqrstuvwxyz"
LETTER_BITS = math.log2(len(LETTERS))
CONTROL_BITS = 40
MAX_KEY = 16  # the longest key the prefix-key policy watches for (16 letters)
GUESSES = 16  # letters offered when a lookup cannot be answered from the state


class StateOverflow(RuntimeError):
    """The policy tried to hold more than B bits (a bug: the policy must stay within B)."""


class BoundedStateReader:
    """Streams one prompt through a state of at most `bits` bits; then `answer()`.

    With room for 3 letters it copies a 3-letter string, and guesses the rest of a longer one:

    >>> prompt = "a b c\\n\\na b c\\n\\na"
    >>> reader = BoundedStateReader(CONTROL_BITS + 15).read(prompt)
    >>> reader.answer(prompt), reader.stored, reader.peak_bits <= reader.bits
    (' b c\\n\\n', ['a', 'b', 'c'], True)
    >>> BoundedStateReader(CONTROL_BITS + 10).read(prompt).stored
    ['a', 'b']
    """

    def __init__(self, bits: int) -> None:
        if bits < CONTROL_BITS:
            raise ValueError(f"bits={bits}: the control registers alone take {CONTROL_BITS} bits")
        self.bits = bits
        self.peak_bits = float(CONTROL_BITS)
        # control registers (within CONTROL_BITS): format, parser position, one pending letter
        self.kind = "copy"  # "copy", "lookup" (labelled lines) or "paper" ($...|...|)
        self.label = ""  # the current line's label: "", "string", "key" or "continuation"
        self.previous = "\n"
        self.pending = ""
        self.in_label = False
        self.blank_line = False
        self.field = 0
        self._reset_block()

    def _reset_block(self) -> None:
        self.stored: list[str] = []  # the first string's letters, or the letters after the key
        self.key: list[str] = []  # a key read before the string
        self.window: list[str] = []  # the last letters of the string, compared with the key
        self.later_key: list[str] = []  # a key read after the string
        self.seen = 0  # letters of the first string (counter)
        self.matched = False

    def state_bits(self) -> float:
        letters = len(self.stored) + len(self.key) + len(self.window) + len(self.later_key)
        return CONTROL_BITS + letters * LETTER_BITS

    def _fits(self, letters: int = 1) -> bool:
        return self.state_bits() + letters * LETTER_BITS <= self.bits

    def _store(self, target: list[str], letter: str) -> None:
        target.append(letter)
        bits = self.state_bits()
        if bits > self.bits:
            raise StateOverflow(f"state of {bits:.1f} bits exceeds B = {self.bits}")
        self.peak_bits = max(self.peak_bits, bits)

    # ---- reading -----------------------------------------------------------------------
    def read(self, text: str) -> BoundedStateReader:
        for char in text:
            if self.kind == "paper" or (char == "$" and self.previous == "\n"):
                self._paper_char(char)
            else:
                self._natural_char(char)
            self.previous = char
        self._flush()
        return self

    def _paper_char(self, char: str) -> None:
        self.kind = "paper"
        if char == "|":
            self.field += 1
            if self.field == 1 and 0 < self.seen <= MAX_KEY:  # a short first field: a key
                self.key, self.stored = self.stored, []
        elif char in LETTERS:
            if self.field == 0:
                self._first(char, reserve=MAX_KEY)
            elif self.key:
                self._watch(char)
            elif self._fits():
                self._store(self.later_key, char)

    def _natural_char(self, char: str) -> None:
        if self.previous == "\n":  # a new line
            if char == "\n":
                self.blank_line, self.field = True, self.field + 1
            else:
                if char.isupper():  # a labelled line: String:, Key: or Continuation:
                    self.kind = "lookup"
                    if self.blank_line:
                        self._reset_block()  # a new lookup block: demonstrations leave nothing
                self.blank_line = False
                self.label, self.in_label = "", char.isupper()
        if self.in_label:
            if char in ": ":
                self.in_label = False
            else:
                self.label = (self.label + char.lower())[:12]
            return
        if self.pending and char in " \n]":
            self._flush()
        self.pending = char if char in LETTERS and self.previous in " \n[" else ""

    def _flush(self) -> None:
        if not self.pending:
            return
        letter, self.pending = self.pending, ""
        if self.kind == "copy":
            if self.field == 0:
                self._first(letter, reserve=0)
        elif self.label == "string":
            self._watch(letter) if self.key else self._first(letter, reserve=MAX_KEY)
        elif self.label == "key":
            target = self.later_key if self.seen else self.key
            if self._fits():
                self._store(target, letter)

    def _first(self, letter: str, reserve: int) -> None:
        """A letter of the first string: keep it while it fits (keeping room for a key)."""
        self.seen += 1
        if self._fits(1 + reserve):
            self._store(self.stored, letter)

    def _watch(self, letter: str) -> None:
        """A letter of the string after a key: find the key, then keep what follows it."""
        if self.matched:
            if self._fits():
                self._store(self.stored, letter)
            return
        if len(self.window) == len(self.key):
            self.window.pop(0)
        if not self._fits():
            return  # no room to watch for the key: it will not be found
        self._store(self.window, letter)
        if self.window == self.key:
            self.matched, self.window = True, []

    # ---- answering ---------------------------------------------------------------------
    def answer(self, prompt: str) -> str:
        """The continuation, from the state alone (guesses seeded by the prompt)."""
        guesser = random.Random(hashlib.sha256(prompt.encode()).digest())
        guesses = [guesser.choice(LETTERS) for _ in range(max(GUESSES, self.seen))]
        if self.kind == "copy":
            letters = self.stored[1:] + guesses[: max(0, self.seen - len(self.stored))]
            return "".join(" " + letter for letter in letters) + "\n\n"
        if self.key:
            letters = self.stored if self.matched else guesses[:GUESSES]
        else:
            text, key = "".join(self.stored), "".join(self.later_key)
            found = text.find(key) if key else -1
            letters = list(text[found + len(key) :]) if found >= 0 else []
            letters = letters + guesses[:GUESSES]
        if self.kind == "paper":
            return "".join(letters)
        return "".join(" " + letter for letter in letters)
