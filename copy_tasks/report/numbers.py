"""What the leaderboard takes as a number: one rule (`finite_number`) for the values of a results
file, of a samples file and of a CSV cell, where a corrupt or edited file must not break a build.

The rule is the same for all: a finite number (NaN and infinities are not, nor are booleans),
at most `LARGEST_VALUE` in size where a value is a metric, stderr or count of ours. The callers
differ only in what they read, made explicit: JSON values (`text=False`: the text "0.5" is not a
number, lm-eval's "N/A" neither) or CSV cells (`text=True`: text is what is read), and whether the
size is bounded (a doc's `query_depth` in a samples file is not a metric: `largest=math.inf`).

    >>> finite_number(0.25), finite_number("0.25"), finite_number("0.25", text=True), finite_number(True)
    (0.25, None, 0.25, None)
    >>> finite_number(float("nan")), finite_number(10**400), finite_number(2e9), finite_number(2e9, largest=math.inf)
    (None, None, None, 2000000000.0)
"""

from __future__ import annotations

import math
from typing import Any

LARGEST_VALUE = 1e9  # no metric, stderr or count of ours comes near; larger values are corrupt


def finite_number(value: Any, *, text: bool = False, largest: float = LARGEST_VALUE) -> float | None:
    """`value` as a float when it is a finite number of at most `largest` in size, else None.
    `text`: a string is read as the number it spells (a CSV cell); else only an int or float
    counts (a JSON value). A boolean is never a number."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)) and not (text and isinstance(value, str)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):  # text that is no number; an integer too large for a float
        return None
    return number if math.isfinite(number) and abs(number) <= largest else None

def cell_number(text: str) -> float | None:
    """A CSV cell as a finite number of plausible size, or None (a CSV written by an older
    version, or edited, must not break the summary or the plots)."""
    return finite_number(text, text=True)


def cell_length(text: str) -> int | None:
    number = cell_number(text)
    return int(number) if number is not None and number >= 1 and number == int(number) else None
