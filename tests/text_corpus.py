"""Local natural-ish text the tests write themselves (no download)."""

from __future__ import annotations

from pathlib import Path

import pytest

SUBJECTS = ["The river", "A small boat", "The old miller", "Every child", "The morning train", "Her sister"]


VERBS = ["carried", "watched", "remembered", "painted", "followed", "counted"]


OBJECTS = ["the quiet hills.", "a letter from the coast.", "seven bright lanterns.", "the long road home.",
           "its own shadow.", "the last of the apples."]


def document(words: int, seed: int) -> str:
    """About `words` words of simple sentences, with newlines between paragraphs."""
    out: list[str] = []
    i = seed
    while len(out) < words:
        sentence = f"{SUBJECTS[i % 6]} {VERBS[(i // 6) % 6]} {OBJECTS[(i // 36) % 6]}".split()
        out.extend(sentence)
        if i % 5 == 4:
            out[-1] += "\n\n"
        i += 7
    return " ".join(out[:words])


DOCUMENT_WORDS = (30, 120, 700, 1500)


def write_corpus(folder: Path) -> Path:
    """A folder of .txt files, one document each, of 30 to 1500 words."""
    folder.mkdir(parents=True, exist_ok=True)
    for index, words in enumerate(DOCUMENT_WORDS):
        (folder / f"doc{index}.txt").write_text(document(words, index))
    return folder


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"))


def source(path) -> tuple[tuple[str, str], ...]:
    return (("text_source", str(path)),)


def passage(doc: dict) -> list[str]:
    return doc["prompt"].split("\n\n")[0].split(" ")
