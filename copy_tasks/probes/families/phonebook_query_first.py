"""`phonebook_query_first`: the phone book, with the name to find given before the book.

The same books, examples and queried names as `phonebook_copy` (it shares its data key, so doc
i of a length and seed draws the same book), with one line before the book that names the
person, `Look up {First} {Last}.`, and a blank line; the question at the end is the same. A model
with a fixed-size state can keep just that entry while the book streams by, so the gap between
the two orders on one model is the pretrained analogue of the paper's prefix-key lookup
(`lookup_prefix` against `lookup_suffix`). Scored as the phone book is, under both rules.
"""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.families.phonebook_copy import FAMILY as PHONEBOOK
from copy_tasks.probes.families.phonebook_copy import make_phonebook_doc
from copy_tasks.probes.family import Family, register

LEAD = "Look up {name}.\n\n"


def queried_name(prompt: str) -> str:
    """The name a phone-book prompt asks for: its last line, without the colon.

    >>> queried_name("Ann Lee: 6093237777\\n\\nAnn Lee:")
    'Ann Lee'
    """
    return prompt.rsplit("\n", 1)[-1].removesuffix(":")


def make_query_first_doc(rng: np.random.Generator, entries: int) -> dict:
    """`phonebook_copy`'s doc from the same draws, with the queried name before the book.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_query_first_doc(doc_rng("phonebook_copy", "1.0", 3, 1234, 0), 3)
    >>> print(doc["prompt"])
    Look up Pamela Cookson.
    <BLANKLINE>
    John Hark: 8202035267
    Evelyn Karam: 8025602519
    Pamela Cookson: 9838041787
    <BLANKLINE>
    John Hark: 8202035267
    Evelyn Karam: 8025602519
    <BLANKLINE>
    Pamela Cookson:
    >>> doc["target"], doc["query_position"]
    ('9838041787', 2)
    """
    doc = make_phonebook_doc(rng, entries)
    return {**doc, "prompt": LEAD.format(name=queried_name(doc["prompt"])) + doc["prompt"]}


def after_book(prompt: str) -> int:
    """Where the text after the book starts (the two example lookups and the query): after the
    prompt's second blank line, so that under a chat template the lead line and the book are the
    user's turn.

    >>> prompt = "Look up A.\\n\\nA: 1\\nB: 2\\n\\nB: 2\\n\\nA:"
    >>> prompt[after_book(prompt):]
    'B: 2\\n\\nA:'
    """
    first = prompt.index("\n\n")
    return prompt.index("\n\n", first + 2) + 2


FAMILY = register(Family(
    name="phonebook_query_first",
    summary="a person's number from a phone book, the name given before the book",
    unit="entries",
    lengths=PHONEBOOK.lengths,
    default_docs=PHONEBOOK.default_docs,
    min_length=PHONEBOOK.min_length,
    draw_doc=make_query_first_doc,
    score_one_reading=PHONEBOOK.score_one_reading,
    score_authors_rule=PHONEBOOK.score_authors_rule,
    stop_sequences=PHONEBOOK.stop_sequences,
    our_reading_settled=PHONEBOOK.our_reading_settled,
    authors_settled=PHONEBOOK.authors_settled,
    scoring_group=PHONEBOOK.scoring_group,
    data_key=PHONEBOOK.data_name,
    data_version=PHONEBOOK.data_version,
    task_version="1.0",
    field_notes=PHONEBOOK.field_notes,
    chat_instruction="Here is a phone book, and the name to look up first. Look up phone numbers in it.",
    chat_prefill_at=after_book,
))
