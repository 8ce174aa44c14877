"""F1 and exact match with the official SQuAD normalisation, best over the gold answers.

Normalisation (the official SQuAD v2 evaluation script's rule): lower case, delete
punctuation, drop the articles a, an, the, and collapse whitespace. F1 is over the normalised
words (bag overlap); an empty prediction scores 0 against a non-empty gold answer. The answer
is the first line of the generation.

The authors' script replaced punctuation by spaces instead of deleting it, so "well-known"
was two words for them and one here; we keep the official rule so our numbers compare with
published SQuAD results.

    >>> normalize("The  Denver Broncos!")
    'denver broncos'
    >>> score_squad(" Broncos\\nQuestion: who", ["Denver Broncos", "the Broncos"])
    {'exact_match': 1.0, 'f1': 1.0}
    >>> score_squad(" Denver", ["Denver Broncos"])
    {'exact_match': 0.0, 'f1': 0.6666666666666666}
"""

from __future__ import annotations

import re
import string
from collections import Counter

ARTICLES = re.compile(r"\b(a|an|the)\b")
PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    text = "".join(char for char in text.lower() if char not in PUNCTUATION)
    return " ".join(ARTICLES.sub(" ", text).split())


def f1(prediction: str, gold: str) -> float:
    predicted, wanted = normalize(prediction).split(), normalize(gold).split()
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
