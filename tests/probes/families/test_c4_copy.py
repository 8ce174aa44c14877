"""c4_copy (`copy_tasks.probes.families.c4_copy`): passages of exactly L words from one document."""

from __future__ import annotations

import pytest
from text_corpus import DOCUMENT_WORDS, passage, source

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs


@pytest.mark.parametrize("length", FAMILIES["c4_copy"].lengths)
def test_passages_have_exactly_l_words_from_one_document(corpus, length):
    texts = [" ".join((corpus / f"doc{i}.txt").read_text().split()) for i in range(len(DOCUMENT_WORDS))]
    for doc in generate_docs("c4_copy", length, 1234, 50, source(corpus)):
        words = passage(doc)
        assert len(words) == length == doc["words"]
        assert "\n" not in " ".join(words)
        assert DOCUMENT_WORDS[doc["document"]] >= length
        assert " ".join(words) in texts[doc["document"]]
        assert doc["prompt"] == f"{' '.join(words)}\n\n{' '.join(words)}\n\n{words[0]}"
        assert doc["target"] == " " + " ".join(words[1:])
