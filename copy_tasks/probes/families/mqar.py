"""`mqar`: multi-query associative recall, the probe of Zoology (Arora et al., 2023), as text.

K key-value pairs, one a line (`{key}: {value}`: a key of 4 letters a-z, a value of 4 digits
1000-9999, keys and values unique within a doc, so no key is a prefix of another), a blank line,
then Q = 8 of the keys again, drawn without replacement in random order, each to be answered with
its value. A doc is 8 requests (`Family.queries`): the prompt of query i holds the pairs and the
queries before it, each answered with its true value (as teacher forcing and Zoology's training
give them), then query i's key and a colon; the answer is its value. Each query is scored on
its own: `query_accuracy` is the fraction answered right, `exact_match` whether all 8 are. The
teacher-forced task scores each value in the same prompts. A model with a fixed-size state must
keep every pair it may be asked about, as in the phone book; unlike the phone book, it is asked 8
times, so guessing one entry to keep does not pass.

The authors of Zoology score MQAR only inside their training harness (argmax at each value
position, on token ids); there is no rule of theirs for a generated answer, so this family has
no authors' metric.

`copy_tasks_mqar_format=zoology` writes the doc as Zoology's token sequences, for models trained
on them (`copy-tasks train`'s `mqar` task): every key and every value one symbol, keys and values
from two disjoint vocabularies (Zoology splits its token ids in half; here 512 key symbols,
CJK ideographs from U+4E00, and 512 value symbols, Hangul syllables from U+AC00), the pairs
written key, value, key, value with nothing between, then the queries, each a bare key whose
answer is the next symbol. As in Zoology, no value is written after a query: the prompt of
query i is query i - 1's and its own key, so in one pass over the last prompt each key's position
predicts its value. Zoology places its queries at gaps drawn from a power law, filled with random
tokens; here they follow one another with no filler (Zoology with every gap 0). The keys, values
and queried positions are drawn from the same seeded stream as the natural format's, but as
symbols, so the two formats' docs are not the same pairs.
"""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.chat import after_first_block
from copy_tasks.probes.families.phonebook_copy import leading_number, number_settled
from copy_tasks.probes.family import Family, register
from copy_tasks.probes.options import ChoiceOption

KEY_LETTERS = 4
VALUES = (1000, 10_000)  # 4-digit values
QUERIES = 8
LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
FORMATS = ("natural", "zoology")
MQAR_FORMAT = ChoiceOption("copy_tasks_mqar_format", "fmt", "the mqar prompt format", default="natural",
                           choices=FORMATS)
ZOOLOGY_SYMBOLS = 512  # key symbols, and as many value symbols
ZOOLOGY_KEYS = tuple(chr(0x4E00 + i) for i in range(ZOOLOGY_SYMBOLS))  # CJK ideographs
ZOOLOGY_VALUES = tuple(chr(0xAC00 + i) for i in range(ZOOLOGY_SYMBOLS))  # Hangul syllables


def _draw_keys(rng: np.random.Generator, count: int) -> list[str]:
    """`count` distinct keys of KEY_LETTERS letters, in draw order."""
    keys: dict[str, None] = {}
    while len(keys) < count:
        codes = LETTERS[rng.integers(len(LETTERS), size=(count - len(keys), KEY_LETTERS))]
        keys.update(dict.fromkeys(row.tobytes().decode("ascii") for row in codes))
    return list(keys)[:count]


def check_pairs(pairs: int, fmt: str = "natural") -> None:
    """Refuse a number of pairs the format cannot write: Zoology's has ZOOLOGY_SYMBOLS keys.

    >>> check_pairs(600), check_pairs(512, "zoology")
    (None, None)
    >>> check_pairs(600, "zoology")
    Traceback (most recent call last):
    ValueError: copy_tasks_mqar_format=zoology has 512 key symbols, so at most 512 pairs, got 600
    """
    if fmt == "zoology" and pairs > ZOOLOGY_SYMBOLS:
        raise ValueError(f"{MQAR_FORMAT.key}=zoology has {ZOOLOGY_SYMBOLS} key symbols, so at most "
                         f"{ZOOLOGY_SYMBOLS} pairs, got {pairs}")


def _draw_zoology(rng: np.random.Generator, pairs: int) -> tuple[list[str], list[str]]:
    """`pairs` distinct key symbols and `pairs` distinct value symbols (Zoology's vocabularies)."""
    keys = rng.choice(ZOOLOGY_SYMBOLS, size=pairs, replace=False).tolist()
    values = rng.choice(ZOOLOGY_SYMBOLS, size=pairs, replace=False).tolist()
    return [ZOOLOGY_KEYS[i] for i in keys], [ZOOLOGY_VALUES[i] for i in values]


def make_mqar_doc(rng: np.random.Generator, pairs: int, fmt: str = "natural", queries: int | None = QUERIES) -> dict:
    """One doc of `pairs` key-value lines and `queries` queries (None: every key once, in random
    order, as Zoology's training asks them; `copy-tasks train` draws its mqar examples so); the
    doc is the first query's request. The shipped tasks ask QUERIES.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_mqar_doc(doc_rng("mqar", "1.0", 8, 1234, 0), 8)
    >>> print(doc["prompt"])
    uzgq: 8057
    kzto: 3501
    emvu: 1925
    ndog: 6239
    srtt: 5422
    kcwo: 7876
    vshn: 3123
    chco: 7762
    <BLANKLINE>
    vshn:
    >>> doc["continuation"], doc["query_keys"][:3], doc["query_positions"][:3]
    (' 3123', ['vshn', 'uzgq', 'ndog'], [6, 0, 3])
    >>> print(query_docs(doc)[2]["prompt"].split("\\n\\n")[1])
    vshn: 3123
    uzgq: 8057
    ndog:

    In Zoology's format, every key and value one symbol, the queries bare keys:

    >>> doc = make_mqar_doc(doc_rng("mqar", "1.0", 8, 1234, 0), 8, fmt="zoology")
    >>> [hex(ord(symbol)) for symbol in doc["prompt"][:4]], len(doc["prompt"]), doc["continuation"] == doc["target"]
    (['0x4ffc', '0xac31', '0x4f1d', '0xad84'], 17, True)
    >>> query_docs(doc)[1]["prompt"] == doc["prompt"] + doc["query_keys"][1]  # no value after a query
    True

    Every key asked (a training example of 3 pairs):

    >>> doc = make_mqar_doc(doc_rng("mqar", "1.0", 3, 1234, 0), 3, fmt="zoology", queries=None)
    >>> sorted(doc["query_positions"]), len(query_docs(doc))
    ([0, 1, 2], 3)
    """
    queries = pairs if queries is None else queries
    if pairs < queries:
        raise ValueError(f"mqar asks {queries} queries drawn without replacement, so it needs at least {queries} "
                         f"pairs, got {pairs}")
    check_pairs(pairs, fmt)
    if fmt == "zoology":
        keys, values = _draw_zoology(rng, pairs)
    else:
        keys = _draw_keys(rng, pairs)
        values = [str(value) for value in rng.choice(np.arange(*VALUES), size=pairs, replace=False).tolist()]
    positions = [int(i) for i in rng.choice(pairs, size=queries, replace=False)]
    first = positions[0]
    if fmt == "zoology":
        prompt, continuation = "".join(key + value for key, value in zip(keys, values)) + keys[first], values[first]
    else:
        book = "\n".join(f"{key}: {value}" for key, value in zip(keys, values))
        prompt, continuation = f"{book}\n\n{keys[first]}:", f" {values[first]}"
    return {
        "prompt": prompt,
        "target": values[first],
        "continuation": continuation,
        "format": fmt,
        "query_keys": [keys[i] for i in positions],
        "query_values": [values[i] for i in positions],
        "query_positions": positions,
    }


def doc_format(doc: dict) -> str:
    """A doc's format: its `format` field, `natural` for a doc written before the field was
    (an export of task version 1.0's first docs, a hand-made doc).

    >>> doc_format({"format": "zoology"}), doc_format({"prompt": "ab: 12\\n\\nab:"})
    ('zoology', 'natural')
    """
    return doc.get("format", "natural")


def query_docs(doc: dict) -> list[dict]:
    """The doc's requests, one per query: query i's prompt is the doc's with the queries before
    it, answered rightly in the natural format (in Zoology's, bare keys: Zoology writes no value
    after a query), then its key; its target and continuation are its value.

    >>> doc = {"prompt": "ab: 1\\ncd: 2\\n\\ncd:", "target": "2", "continuation": " 2", "format": "natural",
    ...        "query_keys": ["cd", "ab"], "query_values": ["2", "1"]}
    >>> [(d["prompt"][-9:], d["target"]) for d in query_docs(doc)]
    [('d: 2\\n\\ncd:', '2'), ('cd: 2\\nab:', '1')]

    A doc asks at least one query, and gives each query's value:

    >>> query_docs({**doc, "query_keys": [], "query_values": []})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: an mqar doc asks at least one query: ... got 0 key(s) and 0 value(s)
    """
    keys, values = doc.get("query_keys"), doc.get("query_values")
    if not (isinstance(keys, list) and isinstance(values, list) and keys and len(keys) == len(values)):
        counts = [f"{len(given)} {what}(s)" if isinstance(given, list) else f"{type(given).__name__} for {what}s"
                  for given, what in ((keys, "key"), (values, "value"))]
        raise ValueError("an mqar doc asks at least one query: doc['query_keys'] and doc['query_values'] must be "
                         f"non-empty lists of the same length (a row of copy-tasks export), got {' and '.join(counts)}")
    zoology = doc_format(doc) == "zoology"
    requests, prompt = [], doc["prompt"]
    for i, (key, value) in enumerate(zip(doc["query_keys"], doc["query_values"])):
        if i:
            prompt += key if zoology else f" {doc['query_values'][i - 1]}\n{key}:"
        requests.append({**doc, "prompt": prompt, "target": value, "continuation": value if zoology else f" {value}"})
    return requests


def leading_answer(generation: str, doc: dict) -> str:
    """What an answer gives as the value: the digits it starts with (after spaces), in Zoology's
    format its first symbol (after spaces).

    >>> leading_answer(" 6136 and so on", {"format": "natural"}), leading_answer("\uac01\uac02", {"format": "zoology"})
    ('6136', '\uac01')
    """
    return generation.lstrip()[:1] if doc_format(doc) == "zoology" else leading_number(generation)


def score_query(generation: str, doc: dict) -> dict[str, float]:
    """One query's answer: the value it starts with (`leading_answer`); its partial credit is
    the query's own verdict (the doc's `query_accuracy` is the mean over its queries).

    >>> natural = {"target": "6136", "format": "natural"}
    >>> score_query(" 6136 and so on", natural), score_query(" 613", natural)
    ({'exact_match': 1.0, 'query_accuracy': 1.0}, {'exact_match': 0.0, 'query_accuracy': 0.0})
    """
    right = float(leading_answer(generation, doc) == doc["target"])
    return {"exact_match": right, "query_accuracy": right}


def query_settled(generation: str, doc: dict) -> bool:
    """Whether the value an answer gives (`leading_answer`) is the same whatever follows: as the
    phone book's number (`number_settled`), in Zoology's format once its first symbol is written.

    >>> query_settled(" 613", {"target": "6136"}), query_settled(" 6136\\n", {"target": "6136"})
    (False, True)
    >>> query_settled(" \uac01", {"target": "\uac02", "format": "zoology"})
    True
    """
    if doc_format(doc) == "zoology":
        return bool(generation.strip())
    return number_settled(generation, doc["target"])


def no_authors_rule(generation: str, doc: dict) -> dict[str, float]:
    """Zoology has no rule for a generated answer (module docstring): no authors' metrics."""
    return {}


LENGTHS = (8, 16, 32, 64, 128, 256, 512)
FAMILY = register(Family(
    name="mqar",
    summary="the values of 8 keys asked in turn after key-value pairs (multi-query associative recall)",
    unit="pairs",
    lengths=LENGTHS,
    default_docs=200,
    min_length=QUERIES,
    draw_doc=make_mqar_doc,
    score_one_reading=score_query,
    score_authors_rule=no_authors_rule,
    stop_sequences=("\n",),
    our_reading_settled=query_settled,
    authors_settled=lambda generation, doc: True,  # no authors' rule
    scoring_group="associative recall",
    task_version="1.1",
    partial_credit=("query_accuracy",),
    authors_metrics=(),
    queries=query_docs,
    options=(MQAR_FORMAT,),
    check_length=check_pairs,
    field_notes=(("format", "`natural` (key-value lines) or `zoology` (Zoology's one-symbol keys and values)"),
                 ("query_keys", "the keys asked, in order (the first is the prompt's); 4 letters (a symbol in "
                                "Zoology's format), unique in a doc"),
                 ("query_values", "their values, in order (the first is the target); 4 digits (a symbol), unique in a "
                                  "doc"),
                 ("query_positions", "where each queried pair sits among the pairs (0-based)")),
    chat_instruction="Here are key-value pairs. Give the value of each key asked after them.",
    chat_prefill_at=after_first_block,  # the queries open the model's turn
))
