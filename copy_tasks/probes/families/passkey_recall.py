"""`passkey_recall`: a number hidden once in filler text, asked for at the end: the control.

A header line says that the text holds a passkey, a number; then `L` words of filler, sentences
generated here from small word lists (no download, no digits), with one sentence more at a
seeded depth, `The passkey is the number {key}.`, the key a number of 5 to 10 digits (its length
drawn per doc, its first digit not 0); then the question `What is the passkey? The passkey is
the number`, answered by ` {key}`: "the number" leaves a base model no other reading (without it
Gemma 3 270M went on "a secret code that is used to enter a building"). Remembering one
number is a summary of the input, which a fixed-size state can keep at any length (the paper's
own conclusion): a model that fails the phone book at a length but
passes the passkey at the same prompt length is showing the limit of its state, not of its
context. Each doc records `query_depth` (where the key sentence sits, 0 at the start of the
filler, 1 at its end), so the leaderboard gives accuracy by depth. lm-eval's `passkey` task is
another one (LIBRA's); this family is ours.
"""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.families.phonebook_copy import number_settled, score_generation
from copy_tasks.probes.family import Family, against_target, register

HEADER = "The text below holds a passkey, a number. Remember it."
QUESTION = "What is the passkey? The passkey is the number"
KEY_DIGITS = (5, 10)  # shortest and longest key
ADJECTIVES = ("quiet", "narrow", "old", "bright", "slow", "distant", "warm", "pale", "green", "heavy", "small",
              "open", "empty", "busy", "tall", "wet")
NOUNS = ("river", "road", "garden", "window", "hill", "lantern", "bridge", "field", "kitchen", "boat", "market",
         "forest", "letter", "wall", "song", "station", "harbour", "school", "cloud", "meadow")
VERBS = ("passes", "follows", "crosses", "faces", "reaches", "leaves", "circles", "watches", "joins", "meets")
PLACES = ("near", "beyond", "under", "behind", "along", "past", "above", "around")
SENTENCE_WORDS = 9  # "The {adj} {noun} {verb} the {noun} {place} the {noun}."


def filler_sentences(rng: np.random.Generator, words: int) -> list[str]:
    """Sentences of exactly `words` words in all, from the word lists; the last one cut short
    (and closed with a period) where `words` is not a multiple of 9.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> filler_sentences(doc_rng("passkey_recall", "1.0", 13, 0, 0), 13)
    ['The empty market crosses the road above the school.', 'The open boat meets.']
    """
    sentences = []
    for start in range(0, words, SENTENCE_WORDS):
        adjective, place = ADJECTIVES[rng.integers(len(ADJECTIVES))], PLACES[rng.integers(len(PLACES))]
        subject, second, third = (NOUNS[i] for i in rng.integers(len(NOUNS), size=3))
        verb = VERBS[rng.integers(len(VERBS))]
        sentence = f"The {adjective} {subject} {verb} the {second} {place} the {third}".split()
        sentences.append(" ".join(sentence[: min(SENTENCE_WORDS, words - start)]) + ".")
    return sentences


def make_passkey_doc(rng: np.random.Generator, words: int) -> dict:
    """One doc: `words` words of filler with the key sentence at a seeded depth.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_passkey_doc(doc_rng("passkey_recall", "1.0", 20, 1234, 0), 20)
    >>> print(doc["prompt"])
    The text below holds a passkey, a number. Remember it.
    <BLANKLINE>
    The old bridge leaves the school around the garden. The heavy boat meets the station under \
the song. The passkey is the number 9623813. The pale.
    <BLANKLINE>
    What is the passkey? The passkey is the number
    >>> doc["target"], round(doc["query_depth"], 3)
    ('9623813', 0.667)
    """
    digits = int(rng.integers(KEY_DIGITS[0], KEY_DIGITS[1] + 1))
    key = str(int(rng.integers(10 ** (digits - 1), 10**digits)))
    sentences = filler_sentences(rng, words)
    position = int(rng.integers(len(sentences) + 1))  # before sentence `position`; len(sentences): at the end
    sentences.insert(position, f"The passkey is the number {key}.")
    return {
        "prompt": f"{HEADER}\n\n{' '.join(sentences)}\n\n{QUESTION}",
        "target": key,
        "continuation": f" {key}",
        "query_depth": position / (len(sentences) - 1),
        "key_digits": digits,
    }


def no_authors_rule(generation: str, doc: dict) -> dict[str, float]:
    """The paper has no such probe, so there is no authors' rule: no authors' metrics."""
    return {}


# The declaration's fields of a family answered by a number (read as the phone book reads it: the
# number the answer starts with) on one line, with no authors' rule: the passkey, flip-flop.
NUMBER_ANSWER_WITHOUT_AUTHORS_RULE = {
    "score_one_reading": against_target(score_generation),
    "score_authors_rule": no_authors_rule,
    "stop_sequences": ("\n",),
    "our_reading_settled": against_target(number_settled),
    "authors_settled": lambda generation, doc: True,  # no authors' rule: nothing of theirs to wait for
    "authors_metrics": (),
}


LENGTHS = (100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
FAMILY = register(Family(
    name="passkey_recall",
    summary="a number hidden once in filler text (the control: a fixed state can keep it)",
    unit="words",
    lengths=LENGTHS,
    default_docs=100,
    min_length=1,
    draw_doc=make_passkey_doc,
    **NUMBER_ANSWER_WITHOUT_AUTHORS_RULE,
    scoring_group="passkey",
    task_version="1.0",
    field_notes=(("query_depth", "where the key sentence sits among the filler's sentences: 0 before the first, "
                                 "1 after the last, for accuracy by depth"),
                 ("key_digits", "how many digits the key has (5 to 10, drawn per doc)")),
    chat_instruction="The text below holds a passkey, a number. Remember it, and give it when asked.",
))
