"""A bounded-state copier: reads the prompt once, left to right, keeping at most B bits.

The paper's fixed-state models (Mamba, LSTMs, linear attention) in their simplest form: the
prompt streams through, one character at a time, and the model answers from its state alone.
Its state is measured, register by register, after every change (`state_bits`):
- control registers of fixed range, each costing log2 of its number of values: the format
  (3), the label of the current line (the prefixes of `String`, `Key` and `Continuation`, or
  another label: 23), the class of the previous character (4), one pending letter or none
  (27), and three flags: `FIXED_CONTROL_BITS` = 15.9 bits;
- two counters (blank lines or `|` fields read, letters of the first string seen), each
  costing the bits of its current value (at least 1);
- stored letters a-z, log2(26) = 4.70 bits each;
- in the lookup formats, the length of each of its four key lists (the key, the window
  compared with it, the letters after its match, a key read after the string), a counter
  each. (In the copy format those lists are unused, and how many letters of the passage are
  stored follows from the counters and B.)
`peak_bits` records the most it held; when a counter grows with the state full, the last
stored letter is dropped to make room (of the string, else of the key lists), and storing a
letter that does not fit is an error, so the bound cannot be broken silently.

Its policy, for the symbol formats of `random_copy` and the lookup families (letters that
stand alone between spaces, or every letter inside the `$...|...|` paper format):
- keep whatever fits: the letters of the first passage or string, from its start; a copy
  prompt ends with the passage's first letter, so a copy stores the letters after it;
- a key read before the string (prefix key) is kept, and while the string streams by, a
  window of the last n letters is compared with it; after the match, only the letters that
  follow the key are kept. The window counts against B like any stored letter;
- a lookup block (a line starting with `String:` or `Key:` after a blank line) starts afresh,
  so demonstrations leave nothing behind;
- answering: a copy is the stored letters, then uniform guesses for the letters it could not
  keep (it counted them); a suffix-key lookup searches the stored string for the key; a
  prefix-key lookup gives the letters it kept after the match. Guesses come from a generator
  seeded by the state (`state_key`), so the answer is a function of the counted state alone:
  two prompts that leave the same state get the same answer.
So it copies a string of L letters perfectly while the L - 1 letters it must write fit beside
its control registers, and otherwise only by guessing the m letters it lacks, which succeeds
with probability 26^-m, below the paper's bound min(1, 2^B / 26^(L-1)) (Theorem 2.7 over the
L - 1 letters the prompt does not give away).
Other text (phone books, natural language) is read with the same rules: it keeps the
stand-alone letters it meets and answers with guesses.
"""

from __future__ import annotations

import hashlib
import math
import random

LETTERS = "abcdefghijklmnopqrstuvwxyz"
LETTER_BITS = math.log2(len(LETTERS))
LABELS = ("string", "key", "continuation")
OTHER_LABEL = "?"
# Every value the label register can hold: the prefixes of the known labels, and "other".
LABEL_STATES = frozenset({label[:i] for label in LABELS for i in range(len(label) + 1)} | {OTHER_LABEL})
FORMATS = ("copy", "lookup", "paper")  # plain copy, labelled lookup lines, or $...|...|
PREVIOUS_CLASSES = ("\n", " ", "[", "x")  # what the parser needs to know of the last character
FLAGS = 3  # in_label, blank_line, matched
FIXED_CONTROL_BITS = (math.log2(len(FORMATS)) + math.log2(len(LABEL_STATES)) + math.log2(len(PREVIOUS_CLASSES))
                      + math.log2(len(LETTERS) + 1) + FLAGS)
COUNTER_LIMIT_BITS = 16  # counters up to 65,535: letters of a string, lines of a prompt
KEY_LISTS = ("key", "window", "after", "later_key")  # the lookup formats' lists, each with a length counter
# The least B the reader takes: its fixed registers, both counters at their limit, and the
# lookup formats' list-length counters at zero.
MIN_BITS = math.ceil(FIXED_CONTROL_BITS) + 2 * COUNTER_LIMIT_BITS + len(KEY_LISTS)
MAX_KEY = 16  # the longest key the prefix-key policy watches for (16 letters)
GUESSES = 16  # letters offered when a lookup cannot be answered from the state
# `bounded_state` picks one of five readers from the prompt's first line
# (`copy_tasks.models.bounded_readers`): this one, the key-value reader (`bounded_pairs`), the
# number reader (`bounded_number`), the phone-book reader (`bounded_phonebook`) and the flip-flop
# reader (`bounded_flip_flop`). The other four count the choice in their control bits; this
# reader's accounting, older than they are, does not (its format register has 3 values; with the
# choice it would have 7, 1.2 bits more).
READER_COUNT = 5
READER_CHOICE_BITS = math.log2(READER_COUNT)


def counter_bits(value: int) -> int:
    """The bits of a counter holding `value` (at least one).

    >>> counter_bits(0), counter_bits(1), counter_bits(53)
    (1, 1, 6)
    """
    return max(1, value.bit_length())


def previous_class(char: str) -> str:
    return char if char in PREVIOUS_CLASSES else "x"


def extend_label(label: str, char: str) -> str:
    """The label register after reading `char` of a line's label.

    >>> extend_label("ke", "Y"), extend_label("ke", "x"), extend_label("?", "k")
    ('key', '?', '?')
    """
    candidate = label + char.lower()
    return candidate if candidate in LABEL_STATES else OTHER_LABEL


def copy_bound(bits: float, length: int) -> float:
    """min(1, 2^B / 26^(L-1)): the most a B-bit state can copy of L random letters, the first
    given in the prompt (the paper's Theorem 2.7 over the L - 1 letters written).

    >>> copy_bound(47, 10), round(copy_bound(47, 11), 3), round(copy_bound(47, 12), 3)
    (1.0, 0.997, 0.038)
    """
    return min(1.0, 2 ** (bits - (length - 1) * LETTER_BITS))


def copy_bound_length(bits: float, threshold: float = 0.5) -> int:
    """The longest random string a B-bit state can copy with probability at least `threshold`
    (the paper's Theorem 2.7): the bound on a fixed-state model's effective length on
    `random_copy`.

    >>> copy_bound_length(47), copy_bound_length(256), copy_bound_length(1024)
    (11, 55, 219)
    """
    return 1 + int((bits - math.log2(threshold)) // LETTER_BITS)


class StateOverflow(RuntimeError):
    """The policy tried to hold more than B bits (a bug: the policy must stay within B)."""


class MeasuredState:
    """What every reader of `bounded_state` shares: a budget of `bits`, its state measured
    (`state_bits`, each reader's own count) after every change, and the most it held."""

    bits: int
    peak_bits: float

    def state_bits(self) -> float:
        raise NotImplementedError

    def state_key(self) -> tuple:
        """Every register the state holds, as a value (what the answer may depend on)."""
        raise NotImplementedError

    def _measure(self) -> None:
        """Record the state's size; holding more than B is an error, never a silent overflow."""
        bits = self.state_bits()
        if bits > self.bits:
            raise StateOverflow(f"state of {bits:.1f} bits exceeds B = {self.bits}")
        self.peak_bits = max(self.peak_bits, bits)

    def guesser(self) -> random.Random:
        """A generator seeded by the state alone, for the guesses of an answer the state does not
        hold: two prompts that leave the same state get the same guesses."""
        return random.Random(hashlib.sha256(repr(self.state_key()).encode()).digest())


class BoundedStateReader(MeasuredState):
    """Streams one prompt through a state of at most `bits` bits; then `answer()`.

    A copy of "a b c" needs its last two letters; with room for them it copies, with room for
    one it guesses the last:

    >>> prompt = "a b c\\n\\na b c\\n\\na"
    >>> reader = BoundedStateReader(MIN_BITS).read(prompt)
    >>> reader.answer(), reader.stored, round(reader.peak_bits, 1)
    (' b c', ['b', 'c'], 29.3)
    >>> prompt = " ".join("abcdefgh") + "\\n\\n" + " ".join("abcdefgh") + "\\n\\na"
    >>> BoundedStateReader(MIN_BITS).read(prompt).stored  # 21.9 bits of control, 6 letters
    ['b', 'c', 'd', 'e', 'f', 'g']
    """

    def __init__(self, bits: int) -> None:
        self.bits = bits
        # control registers: format, the line's label, the last character's class, one
        # pending letter, flags and two counters
        self.kind = "copy"  # one of FORMATS
        self.label = ""  # one of LABEL_STATES
        self.previous = "\n"  # one of PREVIOUS_CLASSES
        self.pending = ""
        self.in_label = False
        self.blank_line = False
        self.field = 0  # counter: blank lines (copy, lookup) or `|` (paper) read
        if bits < MIN_BITS:
            raise ValueError(f"bits={bits}: at least {MIN_BITS} bits are needed, the most its control "
                             "registers can take")
        self._reset_block()
        self.peak_bits = self.state_bits()

    def _reset_block(self) -> None:
        self.stored: list[str] = []  # the first string's letters (copies, suffix-key lookups)
        self.key: list[str] = []  # a key read before the string
        self.window: list[str] = []  # the last letters of the string, compared with the key
        self.after: list[str] = []  # the letters after the key's match (prefix-key lookups)
        self.later_key: list[str] = []  # a key read after the string
        self.seen = 0  # counter: letters of the first string
        self.matched = False

    def control_bits(self) -> float:
        return FIXED_CONTROL_BITS + counter_bits(self.field) + counter_bits(self.seen)

    def key_lists(self) -> list[list[str]]:
        return [getattr(self, name) for name in KEY_LISTS]

    def state_bits(self) -> float:
        letters = len(self.stored) + sum(map(len, self.key_lists()))
        lengths = 0 if self.kind == "copy" else sum(counter_bits(len(found)) for found in self.key_lists())
        return self.control_bits() + letters * LETTER_BITS + lengths

    def state_key(self) -> tuple:
        """Every register the state holds, as a value (what the answer may depend on)."""
        return (self.kind, self.label, self.previous, self.pending, self.in_label, self.blank_line, self.matched,
                self.field, self.seen, tuple(self.stored), *map(tuple, self.key_lists()))

    def _fits(self, letters: int = 1, target: list[str] | None = None) -> bool:
        """Whether `letters` more letters, stored in `target` (by default `stored`), fit in B."""
        target = self.stored if target is None else target
        target.extend("?" * letters)
        fits = self.state_bits() <= self.bits
        del target[len(target) - letters :]
        return fits

    def _store(self, target: list[str], letter: str) -> None:
        target.append(letter)
        self._measure()

    def _count(self, counter: str) -> None:
        """Add one to a counter; if its new bit does not fit, drop the last stored letter (of the
        string, else of the key lists)."""
        setattr(self, counter, getattr(self, counter) + 1)
        while self.state_bits() > self.bits:
            holding = [found for found in (self.stored, self.after, self.window, self.later_key, self.key) if found]
            if not holding:
                break
            holding[0].pop()
        self._measure()

    # ---- reading -----------------------------------------------------------------------
    def read(self, text: str) -> BoundedStateReader:
        for char in text:
            if self.kind == "paper" or (char == "$" and self.previous == "\n"):
                self._paper_char(char)
            else:
                self._natural_char(char)
            self.previous = previous_class(char)
        self._flush()
        return self

    def _paper_char(self, char: str) -> None:
        """`$key|string|` or `$string|key`: which one is known only at a second `|` (prefix key)
        or at the end (suffix key), so a short first field is kept both as a possible key,
        watched for in the second field, and as the string; the second field's first letters
        are kept as a possible key. A second `|` frees what the suffix reading needed."""
        self.kind = "paper"
        if char == "|":
            self._count("field")
            if self.field == 1 and 0 < self.seen <= MAX_KEY and len(self.stored) == self.seen \
                    and self._fits(self.seen, self.key):
                for letter in self.stored:
                    self._store(self.key, letter)
            elif self.field == 2:  # a prefix key: the first field was the key, the second the string
                self.stored, self.later_key = [], []
        elif char in LETTERS:
            if self.field == 0:
                self._first(char, reserve=MAX_KEY)
            elif self.field == 1:
                if len(self.later_key) < MAX_KEY and self._fits(1, self.later_key):
                    self._store(self.later_key, char)
                if self.key:
                    self._watch(char)

    def _natural_char(self, char: str) -> None:
        if self.previous == "\n":  # a new line
            if char == "\n":
                self.blank_line = True
                self._count("field")
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
                self.label = extend_label(self.label, char)
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
                self._first(letter, reserve=0, skip_first=True)
        elif self.label == "string":
            self._watch(letter) if self.key else self._first(letter, reserve=MAX_KEY)
        elif self.label == "key":
            target = self.later_key if self.seen else self.key
            if self._fits(1, target):
                self._store(target, letter)

    def _first(self, letter: str, reserve: int, skip_first: bool = False) -> None:
        """A letter of the first string: keep it while it fits (keeping room for a key). A copy
        skips the first letter: its prompt ends with it."""
        self._count("seen")
        if (self.seen > 1 or not skip_first) and self._fits(1 + reserve):
            self._store(self.stored, letter)

    def _watch(self, letter: str) -> None:
        """A letter of the string after a key: find the key, then keep what follows it."""
        if self.matched:
            if self._fits(1, self.after):
                self._store(self.after, letter)
            return
        if len(self.window) == len(self.key):
            self.window.pop(0)
        if not self._fits(1, self.window):
            return  # no room to watch for the key: it will not be found
        self._store(self.window, letter)
        if self.window == self.key:
            self.matched, self.window = True, []

    # ---- answering ---------------------------------------------------------------------
    def answer(self) -> str:
        """The continuation, from the state alone (guesses seeded by it)."""
        guesser = self.guesser()
        guesses = [guesser.choice(LETTERS) for _ in range(max(GUESSES, self.seen))]
        if self.kind == "copy":
            letters = self.stored + guesses[: max(0, self.seen - 1 - len(self.stored))]
            return "".join(" " + letter for letter in letters)
        if self.key and (self.kind != "paper" or self.field >= 2):  # a key read before the string
            letters = self.after if self.matched else guesses[:GUESSES]
        else:
            text, key = "".join(self.stored), "".join(self.later_key)
            found = text.find(key) if key else -1
            letters = list(text[found + len(key) :]) if found >= 0 else []
            letters = letters + guesses[:GUESSES]
        if self.kind == "paper":
            return "".join(letters)
        return "".join(" " + letter for letter in letters)
