"""What the copy families share: the prompt, the continuation and the scorer of a copy, and the
family declaration they all use (`c4_copy`, `c4_copy_shuffled`, `random_copy`,
`dup_ngram_copy`).

Every copy doc has the authors' prompt `{p}\\n\\n{p}\\n\\n{first word}`: the passage, then the
passage again, then its first word, after which the model must write the rest of the passage;
the generation stops at a blank line. Units are words (symbols for the random strings), and a
passage is stored with single spaces between its words.

The random-string families also have the authors' synthetic format (`copy_tasks_copy_format=
paper`), for models trained on it (`copy-tasks train`): `$<letters>|`, after which the model
writes the letters again and then `.`; no spaces, one character a symbol. The answer is read up
to the first `.` or newline, as a lookup's is, and scored on its first len(target) letters.
"""

from __future__ import annotations

from collections.abc import Callable

from copy_tasks.probes.family import Family
from copy_tasks.probes.options import ChoiceOption, Option

COPY_FORMATS = ("natural", "paper")
COPY_FORMAT = ChoiceOption("copy_tasks_copy_format", "fmt", "the random-string copy prompt format",
                           default="natural", choices=COPY_FORMATS)


def copy_doc(words: list[str]) -> dict:
    """The prompt, target and teacher-forced continuation of copying `words`.

    The continuation is the copy itself: how a model ends it (a blank line, a newline, EOS,
    an end-of-turn token) is not scored.

    >>> doc = copy_doc(["the", "cat", "sat"])
    >>> doc["prompt"], doc["target"], doc["continuation"]
    ('the cat sat\\n\\nthe cat sat\\n\\nthe', ' cat sat', ' cat sat')
    """
    passage = " ".join(words)
    target = passage[len(words[0]) :]
    return {
        "prompt": f"{passage}\n\n{passage}\n\n{words[0]}",
        "target": target,
        "continuation": target,
        "words": len(words),
    }


def paper_copy_doc(symbols: list[str]) -> dict:
    """The authors' synthetic copy format of one-letter `symbols`.

    >>> doc = paper_copy_doc(["m", "b", "h"])
    >>> doc["prompt"], doc["target"], doc["continuation"]
    ('$mbh|', 'mbh', 'mbh')
    """
    letters = "".join(symbols)
    return {"prompt": f"${letters}|", "target": letters, "continuation": letters, "words": len(symbols),
            "format": "paper"}


def paper_answer(generation: str) -> str:
    """The letters of an answer in the authors' synthetic format: up to the first `.` or newline,
    whitespace removed.

    >>> paper_answer("mbh.$ab|"), paper_answer(" m b h\\nx")
    ('mbh', 'mbh')
    """
    return "".join(generation.split("\n", 1)[0].split(".", 1)[0].split())


def score_copy(generation: str, target: str) -> dict[str, float]:
    """exact_match of the copy and prefix_match, the fraction of target words right before the
    first error. The copy is the first words written, as many as the target has, before the
    first blank line (the authors' stop); whitespace runs, newlines included, count as one
    space. What a model writes after the copy (another copy, a newline and more text) is how
    it ends its answer, not the answer, so it does not count, as with the lookups' first k
    letters; the authors' rule also required a blank line right after the copy.

    >>> score_copy(" cat sat\\n\\nthe cat", " cat sat"), score_copy(" cat", " cat sat")
    ({'exact_match': 1.0, 'prefix_match': 1.0}, {'exact_match': 0.0, 'prefix_match': 0.5})
    >>> score_copy(" cat sat cat sat", " cat sat")["exact_match"], score_copy(" cat sits", " cat sat")["exact_match"]
    (1.0, 0.0)
    """
    wanted = target.split()
    produced = generation.split("\n\n", 1)[0].split()[: len(wanted)]
    right = 0
    for got, want in zip(produced, wanted):
        if got != want:
            break
        right += 1
    return {"exact_match": float(produced == wanted), "prefix_match": right / len(wanted)}


def score_copy_authors(generation: str, target: str) -> dict[str, float]:
    """The authors' rule: the generation before its first blank line, newlines as spaces,
    stripped, equal to the passage's rest. A copy that runs on without a blank line is wrong.

    >>> score_copy_authors(" cat sat\\n\\nthe cat", " cat sat"), score_copy_authors(" cat sat cat", " cat sat")
    ({'authors_exact_match': 1.0}, {'authors_exact_match': 0.0})
    >>> score_copy_authors("cat\\nsat", " cat sat")["authors_exact_match"]
    1.0
    """
    answer = generation.split("\n\n", 1)[0].replace("\n", " ").strip()
    return {"authors_exact_match": float(answer == target.strip())}


def score_copy_doc(generation: str, doc: dict) -> dict[str, float]:
    """Our rule for a doc of either format: `score_copy` on words, or, in the authors' synthetic
    format, on letters: the first len(target) letters of `paper_answer`, and the fraction right
    before the first error.

    >>> paper = paper_copy_doc(["m", "b", "h"])
    >>> score_copy_doc("mbh.$xy|", paper), score_copy_doc("mbx.", paper)
    ({'exact_match': 1.0, 'prefix_match': 1.0}, {'exact_match': 0.0, 'prefix_match': 0.6666666666666666})
    """
    if doc.get("format") != "paper":
        return score_copy(generation, doc["target"])
    return score_copy(" ".join(paper_answer(generation)), " ".join(doc["target"]))


def score_copy_doc_authors(generation: str, doc: dict) -> dict[str, float]:
    """The authors' rule for a doc of either format: `score_copy_authors`, or, in their synthetic
    format, their evaluation's: the len(target) characters written after the prompt equal the
    target (what follows them is not read).

    >>> paper = paper_copy_doc(["m", "b", "h"])
    >>> score_copy_doc_authors("mbh.", paper), score_copy_doc_authors("m bh", paper)
    ({'authors_exact_match': 1.0}, {'authors_exact_match': 0.0})
    """
    if doc.get("format") != "paper":
        return score_copy_authors(generation, doc["target"])
    return {"authors_exact_match": float(generation[: len(doc["target"])] == doc["target"])}


def letters_settled(generation: str, target: str) -> bool:
    """Whether a reading of the first len(target) letters of the first line (up to a period,
    spaces removed: `paper_answer`, and the lookups' `answer_letters`) is the same whatever
    follows: the line has ended, or it already holds that many letters.

    >>> [letters_settled(text, "lj") for text in (" l", " l j", " l\\n", "l.")]
    [False, True, True, True]
    """
    return len(paper_answer(generation)) >= len(target) or generation.split("\n", 1)[0].split(".", 1)[0] != generation


def copy_settled(generation: str, target: str) -> bool:
    """Whether our reading (`score_copy`) is the same whatever follows: before the first blank
    line, as many words as the target has are complete (a space follows each), or a complete
    word is wrong (the words before it are right: prefix_match is fixed).

    >>> [copy_settled(text, " cat sat") for text in (" cat sat", " cat sat ", " cat sits", " cot ", " cat\\n\\n")]
    [False, True, False, True, True]
    """
    if "\n\n" in generation:
        return True
    words, wanted = generation.split(), target.split()
    complete = words if generation[-1:].isspace() else words[:-1]
    return len(complete) >= len(wanted) or any(got != want for got, want in zip(complete, wanted))


def copy_authors_settled(generation: str, target: str) -> bool:
    """Whether the authors' reading (`score_copy_authors`) is the same whatever follows: a blank
    line ended it, or its text (newlines as spaces, after leading spaces) can no longer be the
    passage's rest followed by spaces alone.

    >>> [copy_authors_settled(text, " cat sat") for text in (" cat s", " cat sat \\n", " cat sat c", " cot")]
    [False, False, True, True]
    """
    if "\n\n" in generation:
        return True
    written, whole = generation.replace("\n", " ").lstrip(), target.strip()
    return not (whole.startswith(written) or (written.startswith(whole) and not written[len(whole):].strip()))


def copy_doc_settled(generation: str, doc: dict) -> bool:
    """`copy_settled` for a doc of either format; in the authors' synthetic format,
    `letters_settled`.

    >>> paper = paper_copy_doc(["m", "b", "h"])
    >>> copy_doc_settled("mb", paper), copy_doc_settled("mbh", paper)
    (False, True)
    """
    if doc.get("format") != "paper":
        return copy_settled(generation, doc["target"])
    return letters_settled(generation, doc["target"])


def copy_doc_authors_settled(generation: str, doc: dict) -> bool:
    """`copy_authors_settled` for a doc of either format; in the authors' synthetic format,
    once len(target) characters are written (all their rule reads)."""
    if doc.get("format") != "paper":
        return copy_authors_settled(generation, doc["target"])
    return len(generation) >= len(doc["target"])


def copy_family(name: str, summary: str, unit: str, lengths: tuple[int, ...], draw_doc: Callable[..., dict], *,
                default_docs: int = 200, min_length: int = 2, max_length: int = 100_000, downloads: str = "",
                data_key: str = "", options: tuple[Option, ...] = (),
                field_notes: tuple[tuple[str, str], ...] = ()) -> Family:
    """A copy family: the copy prompt, stop at a blank line, scored by `score_copy` (ours) and
    `score_copy_authors`; scoring group `copies`."""
    return Family(
        name=name, summary=summary, unit=unit, lengths=lengths, default_docs=default_docs, min_length=min_length,
        max_length=max_length,
        downloads=downloads, draw_doc=draw_doc, score_one_reading=score_copy_doc,
        score_authors_rule=score_copy_doc_authors, scoring_group="copies",
        stop_sequences=("\n\n",), our_reading_settled=copy_doc_settled,
        authors_settled=copy_doc_authors_settled, data_key=data_key, options=options,
        field_notes=(("words", f"how many {unit} the passage to copy holds"), *field_notes),
        chat_instruction="Here is a passage, then the same passage again. Write it out once more, word for word, "
                         "starting from its first word.",
    )
