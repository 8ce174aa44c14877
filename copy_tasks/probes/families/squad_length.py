"""`squad_length`: a question on a SQuAD v2 paragraph, binned by the paragraph's length (words)."""

from __future__ import annotations

from copy_tasks.probes.family import Family, register
from copy_tasks.probes.squad import BIN_EDGES, SQUAD_SOURCE, make_squad_docs
from copy_tasks.probes.squad_scoring import score_squad, score_squad_authors

FAMILY = register(Family(
    name="squad_length",
    unit="words",
    lengths=BIN_EDGES,
    default_docs=100,
    min_length=1,
    needs_download=True,
    make_doc=None,
    score_generation=lambda generation, doc: score_squad(generation, doc["answers"]),
    score_authors=lambda generation, doc: score_squad_authors(generation, doc["answers"]),
    # The authors' cut: our rule reads the first line, theirs everything before a blank line.
    stop_sequences=("\n\n",),
    partial_credit=("f1",),
    authors_metrics=("authors_exact_match", "authors_f1"),
    options=(SQUAD_SOURCE,),
    make_docs=make_squad_docs,
    answers=lambda doc: tuple(" " + answer for answer in doc["answers"]),
    chat_instruction="Answer the last question from the paragraph with a short span of its text, as the example "
                     "is answered.",
))
