"""`phonebook_copy`: find one person's number in a book read once.

Follows the authors' protocol (PROTOCOLS.md): entry lines `{First} {Last}: {10 digits}` with
a first digit of 6-9, the book joined by newlines, a blank line, two example lines copied
from the book, a blank line, then the query name and a colon; as there, the query entry is
never one of the two examples. Unlike the authors' script, names and numbers are unique within
a book, so every query has exactly one answer.
"""

from __future__ import annotations

import re

import numpy as np

from copy_tasks.probes.chat import after_first_block
from copy_tasks.probes.family import Family, against_target, register
from copy_tasks.probes.names import draw_full_names

DIGITS = 10


def _unique(draw, rng: np.random.Generator, count: int) -> list[str]:
    """`count` distinct values from `draw(rng, k)`, keeping first occurrences in draw order."""
    chosen = dict.fromkeys(draw(rng, count))
    while len(chosen) < count:
        chosen.update(dict.fromkeys(draw(rng, count - len(chosen))))
    return list(chosen)[:count]


def _draw_numbers(rng: np.random.Generator, count: int) -> list[str]:
    """Uniform 10-digit numbers whose first digit is 6-9."""
    return list(map(str, rng.integers(6 * 10 ** (DIGITS - 1), 10**DIGITS, size=count).tolist()))


def make_phonebook_doc(rng: np.random.Generator, entries: int) -> dict:
    """One phone-book doc with `entries` lines (at least 3: two examples and the query).

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_phonebook_doc(doc_rng("phonebook_copy", "1.0", 3, 1234, 0), 3)
    >>> print(doc["prompt"])
    John Hark: 8202035267
    Evelyn Karam: 8025602519
    Pamela Cookson: 9838041787
    <BLANKLINE>
    John Hark: 8202035267
    Evelyn Karam: 8025602519
    <BLANKLINE>
    Pamela Cookson:
    >>> doc["target"], doc["continuation"], doc["query_position"]
    ('9838041787', ' 9838041787', 2)
    """
    if entries < 3:
        raise ValueError(f"a phone book needs at least 3 entries (2 examples + query), got {entries}")
    names = _unique(draw_full_names, rng, entries)
    numbers = _unique(_draw_numbers, rng, entries)
    lines = list(map(": ".join, zip(names, numbers)))
    query = int(rng.integers(entries))
    others = rng.choice(entries - 1, size=2, replace=False)
    examples = [int(i) + int(i >= query) for i in others]
    prompt = (
        "\n".join(lines)
        + "\n\n"
        + "\n".join(lines[i] for i in examples)
        + "\n\n"
        + f"{names[query]}:"
    )
    return {
        "prompt": prompt,
        "target": numbers[query],
        "continuation": f" {numbers[query]}",
        "query_position": query,
        "query_depth": query / (entries - 1),
        "example_positions": examples,
    }


def authors_answer(generation: str) -> str:
    """The authors' reading of a generation: the text before its first newline, stripped.

    >>> authors_answer(" 6093237777\\nAnn Lee: 7"), authors_answer(" 6093237777 Ann")
    ('6093237777', '6093237777 Ann')
    """
    return generation.split("\n", 1)[0].strip()


def leading_number(generation: str) -> str:
    """Our reading: the digits the generation starts with (after spaces, not a newline),
    whatever follows.

    >>> leading_number(" 6093237777 Ann Lee"), leading_number("609-323-7777"), leading_number(" Ann")
    ('6093237777', '609', '')
    """
    return re.match(r"[ \t]*(\d*)", generation)[1]


def leading_digits_right(answer: str, target: str) -> int:
    """How many leading characters of `answer` equal the gold digits (partial credit).

    >>> leading_digits_right("609-323-7777", "6093237777")
    3
    """
    count = 0
    for got, want in zip(answer, target):
        if got != want:
            break
        count += 1
    return count


def score_generation(generation: str, target: str) -> dict[str, float]:
    """exact_match (the number the answer starts with is the query's) and prefix_match
    (fraction of leading digits right).

    >>> score_generation(" 6093237777 and so on", "6093237777")
    {'exact_match': 1.0, 'prefix_match': 1.0}
    >>> score_generation("609-323-7777", "6093237777"), score_generation(" 60932377771", "6093237777")
    ({'exact_match': 0.0, 'prefix_match': 0.3}, {'exact_match': 0.0, 'prefix_match': 1.0})
    """
    answer = leading_number(generation)
    return {
        "exact_match": float(answer == target),
        "prefix_match": leading_digits_right(answer, target) / len(target),
    }


def score_authors(generation: str, target: str) -> dict[str, float]:
    """The authors' rule: the first line, stripped, is the number; nothing may follow it.

    >>> score_authors(" 6093237777\\n", "6093237777"), score_authors(" 6093237777 and so on", "6093237777")
    ({'authors_exact_match': 1.0}, {'authors_exact_match': 0.0})
    """
    return {"authors_exact_match": float(authors_answer(generation) == target)}


def number_settled(generation: str, target: str) -> bool:
    """Whether our reading (`score_generation`) is the same whatever follows `generation`: its
    leading number has ended (a character follows it), or it can no longer be the target's
    digits (then exact_match is 0 and prefix_match is fixed).

    >>> [number_settled(text, "6093237777") for text in (" 609", " 6093237777", " 6093237777 ", " 61", " ")]
    [False, False, True, True, False]
    """
    number = re.match(r"[ \t]*(\d*)", generation)
    return number.end() < len(generation) or not target.startswith(number[1])


def first_line_settled(generation: str, target: str) -> bool:
    """Whether the authors' reading (`score_authors`) is the same whatever follows: the first
    line has ended, or, stripped, it can no longer be the number (it already differs from the
    number, or holds more than the number and spaces).

    >>> [first_line_settled(text, "6093237777") for text in (" 609", " 6093237777 ", " 6093237777 A", " 7")]
    [False, False, True, True]
    """
    if "\n" in generation:
        return True
    line = generation.lstrip()
    return not (target.startswith(line) or (line.startswith(target) and not line[len(target):].strip()))


# Dense around the paper's crossover (Pythia-410M overtakes Mamba-2.8B at about 70 entries;
# Mamba is below 20% by 100).
LENGTHS = (10, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
FAMILY = register(Family(
    name="phonebook_copy",
    summary="a person's number from a phone book",
    unit="entries",
    lengths=LENGTHS,
    default_docs=200,
    min_length=3,
    draw_doc=make_phonebook_doc,
    score_one_reading=against_target(score_generation),
    score_authors_rule=against_target(score_authors),
    stop_sequences=("\n",),
    our_reading_settled=against_target(number_settled),
    authors_settled=against_target(first_line_settled),
    scoring_group="phone book",
    field_notes=(("query_position", "where the queried name sits in the book (0-based entry; names are drawn by "
                                    "1990 US census frequency, unique within a book, as are the numbers)"),
                 ("query_depth", "query_position / (entries - 1): 0 at the top of the book, 1 at the bottom, "
                                 "for accuracy by position"),
                 ("example_positions", "the entries of the two worked lookups before the query (never the "
                                       "queried one)")),
    chat_instruction="Here is a phone book. Look up phone numbers in it.",
    chat_prefill_at=after_first_block,  # the two example lookups and the query open the model's turn
))
