"""F1 and exact match, best over the gold answers, under two rules.

Ours (`score_squad`): the answer is the first line of the generation, normalised by the official
SQuAD v2 evaluation script's rule: lower case, delete punctuation, drop the articles a, an,
the, and collapse whitespace. F1 is over the normalised words (bag overlap); an empty
prediction scores 0 against a non-empty gold answer.

The authors' (`score_squad_authors`, metrics `authors_exact_match` and `authors_f1`): the
answer is the generation before its first blank line, stripped, so text on the next line
counts against it; their normaliser replaces punctuation (and `_`, and the quotes ‘ ’ ´ `) by
spaces instead of deleting it, so "well-known" is two words for them and one for us.

    >>> normalize("The  Denver Broncos!")
    'denver broncos'
    >>> score_squad(" Broncos\\nQuestion: who", ["Denver Broncos", "the Broncos"])
    {'exact_match': 1.0, 'f1': 1.0}
    >>> score_squad(" Denver", ["Denver Broncos"])
    {'exact_match': 0.0, 'f1': 0.6666666666666666}
    >>> score_squad_authors(" Broncos\\nQuestion: who", ["Denver Broncos", "the Broncos"])
    {'authors_exact_match': 0.0, 'authors_f1': 0.5}
    >>> normalize("well-known"), authors_normalize("well-known")
    ('wellknown', 'well known')
"""

from __future__ import annotations

import re
import string
from collections import Counter

ARTICLES = re.compile(r"\b(a|an|the)\b")
PUNCTUATION = frozenset(string.punctuation)
AUTHORS_PUNCTUATION = PUNCTUATION | frozenset("‘’´`")


def normalize(text: str) -> str:
    text = "".join(char for char in text.lower() if char not in PUNCTUATION)
    return " ".join(ARTICLES.sub(" ", text).split())


def authors_normalize(text: str) -> str:
    text = "".join(" " if char in AUTHORS_PUNCTUATION else char for char in text.replace("_", " ").lower())
    return " ".join(ARTICLES.sub(" ", text).split())


def f1(prediction: str, gold: str, normalise=normalize) -> float:
    predicted, wanted = normalise(prediction).split(), normalise(gold).split()
    if not predicted or not wanted:
        return float(predicted == wanted)
    common = sum((Counter(predicted) & Counter(wanted)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def score_squad(generation: str, answers: list[str]) -> dict[str, float]:
    """exact_match and f1 of the generation's first line, best over the gold answers."""
    lines = generation.strip().splitlines()
    prediction = lines[0] if lines else ""
    return {
        "exact_match": max(float(normalize(prediction) == normalize(gold)) for gold in answers),
        "f1": max(f1(prediction, gold) for gold in answers),
    }


def score_squad_authors(generation: str, answers: list[str]) -> dict[str, float]:
    """authors_exact_match and authors_f1 of the text before the first blank line, under the
    authors' normaliser, best over the gold answers."""
    prediction = generation.split("\n\n", 1)[0].strip()
    return {
        "authors_exact_match": max(
            float(authors_normalize(prediction) == authors_normalize(gold)) for gold in answers),
        "authors_f1": max(f1(prediction, gold, authors_normalize) for gold in answers),
    }
