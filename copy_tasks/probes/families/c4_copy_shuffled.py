"""`c4_copy_shuffled`: the passages of `c4_copy`, their words shuffled (the paper's shuffled copy)."""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.copying import copy_doc, copy_family
from copy_tasks.probes.families.c4_copy import LENGTHS
from copy_tasks.probes.family import register
from copy_tasks.probes.text_sources import DOCUMENT_NOTE, TEXT_SOURCE, draw_passage


def make_c4_shuffled_doc(rng: np.random.Generator, length: int, text_source: str) -> dict:
    """The passage of `make_c4_doc` for the same generator, its words in a random order.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("One two three.\\nFour five six seven.")
    >>> sorted(make_c4_shuffled_doc(doc_rng("c4", "1", 3, 0, 0), 3, str(folder / "a.txt"))["prompt"].split()[:3])
    ['Four', 'three.', 'two']
    """
    words, document = draw_passage(rng, text_source, length)
    shuffled = [words[i] for i in rng.permutation(len(words))]
    return copy_doc(shuffled) | {"document": document}


FAMILY = register(copy_family("c4_copy_shuffled", "the same passages, words shuffled", "words", LENGTHS,
                              make_c4_shuffled_doc, default_docs=100, downloads="C4, offline Wikipedia or local text",
                              data_key="c4",
                              options=(TEXT_SOURCE,), field_notes=DOCUMENT_NOTE))
