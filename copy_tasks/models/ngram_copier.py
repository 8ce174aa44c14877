"""An n-gram copier in two modes: the paper's Theorem 2.3 lookup, and a longest-match variant.

To continue a text it looks up where the end of the text occurred earlier in the prompt and
emits the unit that followed the first such occurrence; then repeats. Two modes:
- `n` set: an n-gram lookup, the mechanism of the paper's Theorem 2.3 (a Transformer that
  copies by matching its last n tokens). It cannot tell apart two occurrences of a repeated
  n-gram: limited to 5 words it fails on duplicated 5-grams, like the paper's Transformers;
- `n` unset (the default): a longest match, a stronger, unbounded variant: it matches the
  longest suffix of the text that occurred before, so it finds any passage, phone-book entry
  or key it has read.
Units are characters (`unit="char"`, the default, which handles every format) or
whitespace-separated words (`unit="word"`; a word carries the whitespace that preceded it in
the prompt).

    >>> copier = NgramCopier("the cat sat\\n\\nthe cat sat\\n\\nthe")
    >>> "".join(itertools.islice(copier.stream(), 9))
    ' cat sat\\n'

In the authors' synthetic copy format (`$<letters>|`, `copy_tasks_copy_format=paper`) the `|`
that ends the prompt reads as a second `$`, the start mark, and no n-gram reaches back past
the latest start mark: the copy's first letters are looked up from the start, as Theorem
2.3's construction pads the string's start.

    >>> "".join(itertools.islice(NgramCopier("$abcab|", n=5).stream(), 6))
    'abcab|'

Words are mapped to private code points, so both units run the same string search (C speed):
an occurrence is searched with `str.find` only when the current match cannot be extended.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from copy_tasks.models.answers import cut_at_stops, score_against

UNITS = ("char", "word")
_WORD = re.compile(r"(\s*)(\S+)")
_FIRST_CODE_POINT = 0xF0000  # Unicode private use plane: never in a prompt
START, SEPARATOR = "$", "|"  # the authors' synthetic copy format: `$<letters>|`


def mode_name(unit: str = "char", n: int | None = None) -> str:
    """The copier's mode, as reports name it.

    >>> mode_name(), mode_name("word", 5)
    ('longest match (chars)', '5-gram lookup (words; Theorem 2.3)')
    """
    units = f"{unit}s"
    return f"longest match ({units})" if n is None else f"{n}-gram lookup ({units}; Theorem 2.3)"


class NgramCopier:
    """The copier's deterministic stream of continuations for one prompt."""

    def __init__(self, prompt: str, unit: str = "char", n: int | None = None) -> None:
        if unit not in UNITS:
            raise ValueError(f"unit={unit!r}: allowed are {UNITS}")
        if n is not None and n < 1:
            raise ValueError(f"n={n}: must be at least 1, or None for the longest match")
        self.n = n
        self.mark = None  # the start mark of the authors' synthetic format, if the prompt is in it
        if unit == "char":
            self.codes, self.pieces = prompt, list(prompt)
            if len(prompt) > 1 and prompt[0] == START and prompt[-1] == SEPARATOR:
                self.mark, self.codes = START, prompt[:-1] + START
        else:
            matches = _WORD.findall(prompt)
            ids: dict[str, int] = {}
            self.codes = "".join(chr(_FIRST_CODE_POINT + ids.setdefault(w, len(ids))) for _, w in matches)
            self.pieces = [space + word for space, word in matches]
        self.searchable = self.codes[:-1]  # an occurrence must be followed by a unit

    def _first_end(self, text: str) -> int | None:
        """End of the first occurrence, in the prompt, of the longest (or last n) units of `text`
        (not reaching back past the latest start mark)."""
        reach = len(text) - text.rindex(self.mark) if self.mark else len(text)
        if self.n is not None:
            gram = text[-min(self.n, reach):]
            start = self.searchable.find(gram)
            return start + len(gram) if start >= 0 else None
        low, high = 0, min(reach, len(self.searchable))  # longest suffix length that occurs
        while low < high:
            mid = (low + high + 1) // 2
            if self.searchable.find(text[-mid:]) >= 0:
                low = mid
            else:
                high = mid - 1
        return self.searchable.find(text[-low:]) + low if low else None

    def stream(self) -> Iterator[str]:
        """The continuation, unit by unit (ends when no earlier occurrence matches)."""
        text, end = self.codes, None
        while True:
            if end is None or self.n is not None or end >= len(self.searchable):
                end = self._first_end(text)
                if end is None:
                    return
            # The longest match always extends by the unit it predicts: no new search needed.
            text += self.codes[end]
            yield self.pieces[end]
            end += 1

    def generate(self, until: list[str], max_units: int) -> str:
        """Greedy generation cut before the first stop sequence, as lm-eval's backends do."""
        out = ""
        for piece in itertools.islice(self.stream(), max_units):
            out += piece
            if any(stop and stop in out for stop in until):
                break
        return cut_at_stops(out, until)

    def score(self, continuation: str) -> tuple[float, bool]:
        """(log-probability, is_greedy) of `continuation` (see `answers.score_against`)."""
        produced = ""
        for piece in self.stream():
            produced += piece
            if len(produced) >= len(continuation):
                break
        return score_against(produced, continuation)
