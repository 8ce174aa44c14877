"""A small SQuAD v2-format file, written by the tests (the real data needs the hub).

Paragraphs of chosen word counts (bin edges and their neighbours), each with answerable
questions whose answers are spans of the paragraph, plus the cases the loader must handle:
an unanswerable question, a paragraph with only one answerable question, and a paragraph
whose two questions share one text.
"""

from __future__ import annotations

import json
from pathlib import Path

WORD_COUNTS = (12, 60, 100, 101, 150, 151, 199, 200, 250, 300, 301, 640, 1000, 1001)
VOCABULARY = ("river", "stone", "garden", "lamp", "violet", "harbor", "copper", "meadow", "falcon", "cedar",
              "ember", "quartz", "willow", "summit", "tide", "orchid", "saddle", "cobalt", "thicket", "dune")


def _words(count: int, salt: int) -> list[str]:
    return [VOCABULARY[(i * 7 + salt * 3 + i // 20) % len(VOCABULARY)] + str((i + salt) % 13) for i in range(count)]


def _qa(qid: str, question: str, answers: list[str], impossible: bool = False) -> dict:
    return {"id": qid, "question": question, "is_impossible": impossible,
            "answers": [] if impossible else [{"text": text, "answer_start": 0} for text in answers]}


def squad_paragraphs() -> list[dict]:
    paragraphs = []
    for number, count in enumerate(WORD_COUNTS):
        words = _words(count, number)
        context = " ".join(words)
        paragraphs.append({"context": context, "qas": [
            _qa(f"p{number}-q0", f"What comes after {words[0]} in paragraph {number}?",
                [" ".join(words[1:3]), words[1]]),
            _qa(f"p{number}-q1", f"Which word ends paragraph {number}?", [words[-1]]),
            _qa(f"p{number}-q2", f"What is the second-last word of paragraph {number}?", [words[-2]]),
            _qa(f"p{number}-x", f"Who wrote paragraph {number}?", [], impossible=True),
        ]})
    lonely = _words(80, 99)
    paragraphs.append({"context": " ".join(lonely), "qas": [
        _qa("lonely-q0", "What is the first word?", [lonely[0]]),
        _qa("lonely-x", "What is missing?", [], impossible=True),
    ]})
    twins = _words(90, 77)
    paragraphs.append({"context": " ".join(twins), "qas": [
        _qa("twins-q0", "What is the first word?", [twins[0]]),
        _qa("twins-q1", "What is the first word?", [twins[0]]),
        _qa("twins-q2", "What is the last word?", [twins[-1]]),
    ]})
    return paragraphs


def write_squad_file(path: Path) -> Path:
    path.write_text(json.dumps({"version": "v2.0", "data": [
        {"title": "Fixture", "paragraphs": squad_paragraphs()},
    ]}))
    return path
