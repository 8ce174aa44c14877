"""`c4_copy`: copy a passage of natural text (C4 by default, or local text) read once."""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.copying import copy_doc, copy_family
from copy_tasks.probes.family import register
from copy_tasks.probes.text_sources import DOCUMENT_NOTE, TEXT_SOURCE, draw_passage

LENGTHS = (25, 50, 100, 200, 500, 1000)  # words


def make_c4_doc(rng: np.random.Generator, length: int, text_source: str) -> dict:
    """A passage of exactly `length` words of natural text from `text_source`.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("One two three.\\nFour five six seven.")
    >>> make_c4_doc(doc_rng("c4", "1", 3, 0, 0), 3, str(folder / "a.txt"))["prompt"]
    'two three. Four\\n\\ntwo three. Four\\n\\ntwo'
    """
    words, document = draw_passage(rng, text_source, length)
    return copy_doc(words) | {"document": document}


FAMILY = register(copy_family("c4_copy", "copy a passage of natural text", "words", LENGTHS, make_c4_doc,
                              default_docs=100, downloads="C4, offline Wikipedia or local text", data_key="c4",
                              options=(TEXT_SOURCE,), field_notes=DOCUMENT_NOTE))
