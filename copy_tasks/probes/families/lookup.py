"""`lookup_prefix` and `lookup_suffix`, the n-gram lookup probes: give the k symbols that
follow a key n-gram in a string. This module declares both families.

Suffix key (`lookup_suffix`): the string comes first and the key after it, so a model must
have kept the whole string. Prefix key (`lookup_prefix`): the key comes first, so a model only
has to watch for it. Doc i of `lookup_prefix_<L>` and doc i of `lookup_suffix_<L>` share the
same string, key and answer (both draw from the generator of the data family `lookup`); only
the key's place differs.

Strings are uniform over the letters a-z. The key occurs exactly once in the string (the
authors' generator did not ensure this) and the answer is the `answer_length` letters after it.

Two formats:
- `natural` (default): letters separated by spaces (one token per letter for common
  tokenizers), labelled lines, and three demonstrations, each with its own string and key;
  the test key occurs in no demonstration, so they leak nothing about the test string. The
  last line of each block repeats the key and goes on with the letters after it, so the test
  prompt ends with the key and the answer is its continuation, as in the string. The `Key:`
  line brackets the key, so that the string, not that line, is where the key's longest
  match lies.
- `paper`: the authors' character format for models trained on it, no demonstrations:
  prefix `$<key>|<string>|<answer>.`, suffix `$<string>|<key><answer>.`

Both are scored on the first k letters the model writes: the question is which k letters
follow the key, and a model may go on copying after them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from copy_tasks.probes.copying import letters_settled
from copy_tasks.probes.family import Family, against_target, register
from copy_tasks.probes.options import ChoiceOption, IntOption

ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
DEMONSTRATIONS = 3
DEMONSTRATION_LENGTH = 20
FORMATS = ("natural", "paper")
POSITION_TRIES = 32
STRING_TRIES = 200


@dataclass(frozen=True)
class LookupInstance:
    """A string, a key occurring exactly once in it, and the letters after the key."""

    string: str
    key: str
    answer: str
    key_position: int


def occurs_once(text: str, key: str) -> bool:
    """Whether `key` occurs exactly once in `text`, overlapping occurrences counted.

    >>> occurs_once("abab", "ab"), occurs_once("aaa", "aa"), occurs_once("abc", "bc")
    (False, False, True)
    """
    first = text.find(key)
    return first >= 0 and text.find(key, first + 1) < 0


def draw_instance(
    rng: np.random.Generator, length: int, key_length: int, answer_length: int, avoid: str = ""
) -> LookupInstance:
    """A uniform string of `length` letters with a key that occurs in it exactly once.

    The key is not `avoid` and does not occur in `avoid` (used to keep demonstrations apart
    from the test doc).

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> draw_instance(doc_rng("lookup", "1.0", 12, 0, 0), 12, key_length=3, answer_length=2)
    LookupInstance(string='durqxsbifolh', key='sbi', answer='fo', key_position=5)
    """
    if length < key_length + answer_length:
        raise ValueError(
            f"a string of {length} letters cannot hold a {key_length}-letter key and "
            f"{answer_length} answer letters"
        )
    for _ in range(STRING_TRIES):
        string = ALPHABET[rng.integers(len(ALPHABET), size=length)].tobytes().decode("ascii")
        for position in rng.integers(length - key_length - answer_length + 1, size=POSITION_TRIES):
            position = int(position)
            key = string[position : position + key_length]
            if occurs_once(string, key) and key not in avoid:
                end = position + key_length
                return LookupInstance(string, key, string[end : end + answer_length], position)
    raise ValueError(
        f"no {key_length}-letter key occurred exactly once in {STRING_TRIES} random strings of "
        f"{length} letters: use a longer key (copy_tasks_lookup_key_length)"
    )


def spaced(letters: str) -> str:
    return " ".join(letters)


def _natural_block(instance: LookupInstance, key_place: str, with_answer: bool) -> str:
    string_line = f"String: {spaced(instance.string)}"
    key_line = f"Key: [{spaced(instance.key)}]"
    lines = [key_line, string_line] if key_place == "prefix" else [string_line, key_line]
    answer = instance.key + (instance.answer if with_answer else "")
    lines.append(f"Continuation: {spaced(answer)}")
    return "\n".join(lines)


def render(
    instance: LookupInstance, demonstrations: list[LookupInstance], key_place: str, fmt: str
) -> dict:
    """The prompt, the scored target and the teacher-forced continuation of one doc."""
    if fmt == "paper":
        if key_place == "prefix":
            prompt = f"${instance.key}|{instance.string}|"
        else:
            prompt = f"${instance.string}|{instance.key}"
        return {"prompt": prompt, "target": instance.answer, "continuation": instance.answer}
    blocks = [_natural_block(demo, key_place, with_answer=True) for demo in demonstrations]
    blocks.append(_natural_block(instance, key_place, with_answer=False))
    return {
        "prompt": "\n\n".join(blocks),
        "target": instance.answer,
        "continuation": " " + spaced(instance.answer),
    }


def make_lookup_doc(
    rng: np.random.Generator, length: int, key_place: str, key_length: int, answer_length: int,
    fmt: str,
) -> dict:
    """One lookup doc; the string, key and answer do not depend on `key_place` or `fmt`.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_lookup_doc(doc_rng("lookup", "1.0", 12, 0, 0), 12, "suffix", 3, 2, "paper")
    >>> doc["prompt"], doc["continuation"]
    ('$durqxsbifolh|sbi', 'fo')
    >>> doc = make_lookup_doc(doc_rng("lookup", "1.0", 12, 0, 0), 12, "prefix", 3, 2, "natural")
    >>> print(doc["prompt"].split("\\n\\n")[-1])
    Key: [s b i]
    String: d u r q x s b i f o l h
    Continuation: s b i
    >>> doc["continuation"]
    ' f o'
    """
    instance = draw_instance(rng, length, key_length, answer_length)
    demonstrations: list[LookupInstance] = []
    for _ in range(DEMONSTRATIONS):
        demo = draw_instance(rng, DEMONSTRATION_LENGTH, key_length, answer_length, avoid=instance.key)
        while instance.key in demo.string:
            demo = draw_instance(rng, DEMONSTRATION_LENGTH, key_length, answer_length, avoid=instance.key)
        demonstrations.append(demo)
    doc = render(instance, demonstrations, key_place, fmt)
    doc.update(
        string=instance.string,
        key=instance.key,
        key_position=instance.key_position,
        demonstration_keys=[demo.key for demo in demonstrations],
        format=fmt,
    )
    return doc


def answer_letters(generation: str) -> str:
    """The letters of a generated answer: up to the first newline or period, spaces removed.

    >>> answer_letters(" l j\\nKey: a"), answer_letters("lj.$abc"), answer_letters("  L J ")
    ('lj', 'lj', 'LJ')
    """
    first_line = generation.split("\n", 1)[0].split(".", 1)[0]
    return "".join(first_line.split())


def score_lookup(generation: str, target: str) -> dict[str, float]:
    """exact_match and symbol_accuracy (answer letters right at their position), on the
    first k = len(target) letters written.

    >>> score_lookup(" l j k\\n", "lj"), score_lookup(" l x\\n", "lj"), score_lookup("", "lj")
    ({'exact_match': 1.0, 'symbol_accuracy': 1.0}, {'exact_match': 0.0, 'symbol_accuracy': 0.5}, \
{'exact_match': 0.0, 'symbol_accuracy': 0.0})
    """
    letters = answer_letters(generation)[: len(target)]
    right = sum(got == want for got, want in zip(letters, target))
    return {"exact_match": float(letters == target), "symbol_accuracy": right / len(target)}


def score_lookup_authors(generation: str, target: str) -> dict[str, float]:
    """The authors' rule: the first k letters written (their character-level models wrote no
    spaces; ours skip the spaces between letters), compared position by position.

    >>> score_lookup_authors(" l j k", "lj"), score_lookup_authors("lx", "lj")
    ({'authors_exact_match': 1.0}, {'authors_exact_match': 0.0})
    """
    return {"authors_exact_match": float("".join(generation.split())[: len(target)] == target)}


def written_letters_settled(generation: str, target: str) -> bool:
    """Whether the authors' reading (`score_lookup_authors`) is the same whatever follows: k
    characters other than spaces are written.

    >>> written_letters_settled(" l", "lj"), written_letters_settled(" l j", "lj")
    (False, True)
    """
    return len("".join(generation.split())) >= len(target)


LENGTHS = (20, 50, 100, 200, 500, 1000)
LOOKUP_FORMAT = ChoiceOption("copy_tasks_lookup_format", "fmt", "the lookup prompt format", default="natural",
                             choices=FORMATS)
LOOKUP_OPTIONS = (
    IntOption("copy_tasks_lookup_key_length", "key_length", "the key length n (letters)",
              default=4, minimum=1, maximum=16),
    IntOption("copy_tasks_lookup_answer_length", "answer_length", "the answer length k (letters)",
              default=4, minimum=1, maximum=16),
    LOOKUP_FORMAT,
)


def lookup_family(key_place: str) -> Family:
    """`lookup_suffix` or `lookup_prefix`: the same docs (data key `lookup`), the key after or
    before the string."""
    return Family(
        name=f"lookup_{key_place}",
        summary=("the letters after a key given before the string" if key_place == "prefix" else
                 "the same docs, the key given after the string"),
        unit="letters",
        lengths=LENGTHS,
        default_docs=200,
        min_length=2,
        draw_doc=partial(make_lookup_doc, key_place=key_place),
        score_one_reading=against_target(score_lookup),
        score_authors_rule=against_target(score_lookup_authors),
        stop_sequences=("\n", "."),
        our_reading_settled=against_target(letters_settled),
        authors_settled=against_target(written_letters_settled),
        scoring_group="lookups",
        partial_credit=("symbol_accuracy",),
        data_key="lookup",
        options=LOOKUP_OPTIONS,
        field_notes=(("string", "the random letters the key is looked up in"),
                     ("key", "the letters the query gives; they occur once in the string"),
                     ("key_position", "where the key starts in the string (0-based, in letters)"),
                     ("demonstration_keys", "the keys of the worked blocks before the query, each from a "
                                            "string of its own"),
                     ("format", "`natural` (our text blocks) or `paper` (the authors' character format)")),
        chat_instruction="Each block gives a string of letters and a key from it. Continue the last block's key "
                         "with the letters that follow the key in its string, as the blocks before it do.",
    )


PREFIX = register(lookup_family("prefix"))
SUFFIX = register(lookup_family("suffix"))
