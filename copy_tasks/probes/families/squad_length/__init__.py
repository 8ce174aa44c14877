"""`squad_length`: a question on a SQuAD v2 paragraph, binned by the paragraph's length (words)."""

from __future__ import annotations

from copy_tasks.probes.families.squad_length.data import BIN_EDGES, SQUAD_SOURCE, make_squad_docs
from copy_tasks.probes.families.squad_length.scoring import score_squad, score_squad_authors
from copy_tasks.probes.family import Family, register

FAMILY = register(Family(
    name="squad_length",
    summary="a question on a paragraph, binned by its length",
    unit="words",
    lengths=BIN_EDGES,
    default_docs=100,
    min_length=1,
    downloads="SQuAD v2, or a local copy",
    draw_doc=None,
    score_one_reading=lambda generation, doc: score_squad(generation, doc["answers"]),
    score_authors_rule=lambda generation, doc: score_squad_authors(generation, doc["answers"]),
    # The authors' cut: our rule reads the first line, theirs everything before a blank line.
    stop_sequences=("\n\n",),
    scoring_group="SQuAD",
    partial_credit=("f1",),
    authors_metrics=("authors_exact_match", "authors_f1"),
    options=(SQUAD_SOURCE,),
    field_notes=(("answers", "every answer SQuAD accepts for the question (the target is the first)"),
                 ("question_id", "the SQuAD id of the question asked"),
                 ("demonstration_id", "the SQuAD id of the worked question on the same paragraph before it"),
                 ("paragraph_words", "the paragraph's length in words, which puts it in the length's bin")),
    select_docs=make_squad_docs,
    answers=lambda doc: tuple(" " + answer for answer in doc["answers"]),
    chat_instruction="Answer the last question from the paragraph with a short span of its text, as the example "
                     "is answered.",
))
