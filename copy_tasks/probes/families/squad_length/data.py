"""SQuAD question answering binned by paragraph length (`squad_length`).

The data: SQuAD v2 validation (`rajpurkar/squad_v2` on the Hugging Face hub) by default, or a
local copy: the official SQuAD-format JSON file (`dev-v2.0.json`) or a folder saved by
`datasets` (`save_to_disk`), named by `copy_tasks_squad_source`. Only answerable questions
count, and only paragraphs with at least two of them whose question texts differ.

Bins: a paragraph of w words (whitespace-separated) falls in the first bin whose upper edge is
at least w: (0, 100], (100, 150], (150, 200], (200, 300], (300, 1000]; task
`squad_length_<upper edge>`. Longer paragraphs are in no bin. Within a bin, paragraphs are
ordered by sha256 of (seed, their first question id), so the selection depends on the data and
the seed only, never on file order; doc i is the i-th paragraph. Its test question and its
demonstration are the paragraph's two questions with the smallest sha256 of (seed, id) among
those with distinct texts, so the demonstration never equals the test question.

Prompt (the authors' format, see the family README): the paragraph, a blank line,
`Question: <demo>`, `Answer: <its first answer>`, a blank line, `Question: <test>`, `Answer:`.

    >>> paragraph = Paragraph("t", "Denver won the game in Santa Clara.", (
    ...     Question("q1", "Who won?", ("Denver", "Denver Broncos")),
    ...     Question("q2", "Where was the game?", ("Santa Clara",))))
    >>> bin_edge(paragraph.words)
    100
    >>> doc = paragraph_doc(paragraph, seed=1234)
    >>> print(doc["prompt"])
    Denver won the game in Santa Clara.
    <BLANKLINE>
    Question: Where was the game?
    Answer: Santa Clara
    <BLANKLINE>
    Question: Who won?
    Answer:
    >>> doc["answers"], doc["continuation"]
    (['Denver', 'Denver Broncos'], ' Denver')
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from copy_tasks.probes.options import OptionError, SourceOption, UserError

SQUAD_V2 = "rajpurkar/squad_v2"
BIN_EDGES = (100, 150, 200, 300, 1000)
HOW_TO_USE_LOCAL_SQUAD = (
    "Point squad_length at a local copy with --metadata copy_tasks_squad_source=PATH, where PATH "
    "is the official SQuAD v2 JSON file (dev-v2.0.json) or a folder saved with "
    "datasets.load_dataset('rajpurkar/squad_v2', split='validation').save_to_disk(PATH)."
)


class SquadSourceError(UserError, RuntimeError):
    """The SQuAD source cannot be read; the message says how to use a local copy."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Paragraph:
    title: str
    context: str
    questions: tuple[Question, ...]

    @property
    def words(self) -> int:
        return len(self.context.split())


def bin_edge(words: int) -> int | None:
    """The upper edge of the bin a paragraph of `words` words falls in, or None beyond the last."""
    return next((edge for edge in BIN_EDGES if words <= edge), None)


def _rank(seed: int, question_id: str) -> str:
    return hashlib.sha256(f"{seed}:{question_id}".encode()).hexdigest()


def _from_rows(rows) -> list[Paragraph]:
    """Paragraphs from (title, context, id, question, answer texts) rows, in first-seen order."""
    grouped: dict[tuple[str, str], list[Question]] = {}
    for title, context, question_id, question, answers in rows:
        answers = tuple(text for text in answers if text.strip())
        questions = grouped.setdefault((title, context), [])
        if answers:
            questions.append(Question(question_id, question, answers))
    paragraphs = []
    for (title, context), questions in grouped.items():
        if len({question.question.strip() for question in questions}) >= 2:
            paragraphs.append(Paragraph(title, context, tuple(questions)))
    return paragraphs


MAX_SQUAD_BYTES = 64 * 2**20  # SQuAD v2's training set is 40 MB, its validation set 4 MB


def _typed(value, kind: type, where: str):
    """`value` if it is a `kind`, else a SquadSourceError naming where and what was expected."""
    if isinstance(value, kind) and not isinstance(value, bool):
        return value
    raise SquadSourceError(f"{where} is a {type(value).__name__}, not a {kind.__name__} as in SQuAD's format. "
                           f"{HOW_TO_USE_LOCAL_SQUAD}")


def _official_json_rows(path: Path):
    if path.stat().st_size > MAX_SQUAD_BYTES:
        raise SquadSourceError(f"{path} is {path.stat().st_size / 2**20:.0f} MB; a SQuAD file may hold at most "
                               f"{MAX_SQUAD_BYTES // 2**20} MB (SQuAD v2's training set is 40 MB). "
                               f"{HOW_TO_USE_LOCAL_SQUAD}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = str(error).split(";")[0]
        raise SquadSourceError(f"{path}: not a SQuAD-format JSON file ({type(error).__name__}: {reason}). "
                               f"{HOW_TO_USE_LOCAL_SQUAD}") from None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise SquadSourceError(f"{path}: not a SQuAD-format file (no \"data\" list). {HOW_TO_USE_LOCAL_SQUAD}")
    for a, article in enumerate(data["data"]):
        where = f"{path}: data[{a}]"
        for p, paragraph in enumerate(_typed(_typed(article, dict, where).get("paragraphs"), list,
                                             f"{where}.paragraphs")):
            here = f"{where}.paragraphs[{p}]"
            context = _typed(_typed(paragraph, dict, here).get("context"), str, f"{here}.context")
            for q, qa in enumerate(_typed(paragraph.get("qas"), list, f"{here}.qas")):
                at = f"{here}.qas[{q}]"
                _typed(qa, dict, at)
                answers = [] if qa.get("is_impossible") else [
                    _typed(_typed(answer, dict, f"{at}.answers[{i}]").get("text"), str, f"{at}.answers[{i}].text")
                    for i, answer in enumerate(_typed(qa.get("answers"), list, f"{at}.answers"))]
                yield (str(article.get("title", "")), context, _typed(qa.get("id"), str, f"{at}.id"),
                       _typed(qa.get("question"), str, f"{at}.question"), answers)


def _saved_dataset(path: Path):
    """The validation rows of a folder saved by `datasets` (a DatasetDict's validation split)."""
    import datasets

    try:
        saved = datasets.load_from_disk(str(path))
        return saved["validation"] if isinstance(saved, datasets.DatasetDict) else saved
    except Exception as error:  # datasets raises many kinds for a folder it did not write
        raise SquadSourceError(f"{path}: not a folder saved by datasets' save_to_disk ({type(error).__name__}: "
                               f"{str(error)[:200]}). {HOW_TO_USE_LOCAL_SQUAD}") from None


def _dataset_rows(rows):
    for row in rows:
        yield row["title"], row["context"], row["id"], row["question"], row["answers"]["text"]


def _load_hub():
    try:
        import datasets

        return datasets.load_dataset(SQUAD_V2, split="validation")
    except Exception as error:  # datasets raises many kinds: connection, offline mode, missing file
        raise SquadSourceError(
            f"could not load {SQUAD_V2} (validation) from the Hugging Face hub: {type(error).__name__}: "
            f"{error}. {HOW_TO_USE_LOCAL_SQUAD}"
        ) from None


@cache
def load_paragraphs(source: str) -> tuple[Paragraph, ...]:
    """The usable paragraphs of a SQuAD source; errors name the source and how to use a local copy."""
    if source == SQUAD_V2:
        rows = _dataset_rows(_load_hub())
    else:
        path = Path(source).expanduser()
        if path.is_file():
            rows = _official_json_rows(path)
        elif path.is_dir():
            rows = _dataset_rows(_saved_dataset(path))
        else:
            what = "not a regular file or folder" if path.exists() else "no such file or folder"
            raise SquadSourceError(f"copy_tasks_squad_source={source!r}: {what}. {HOW_TO_USE_LOCAL_SQUAD}")
    try:
        paragraphs = _from_rows(rows)
    except (KeyError, TypeError) as error:
        raise SquadSourceError(f"copy_tasks_squad_source={source!r}: not in SQuAD format "
                               f"(missing {error}). {HOW_TO_USE_LOCAL_SQUAD}") from None
    if not paragraphs:
        raise SquadSourceError(f"copy_tasks_squad_source={source!r} holds no paragraph with two answerable "
                               f"questions. {HOW_TO_USE_LOCAL_SQUAD}")
    return tuple(paragraphs)


SQUAD_SOURCE = SourceOption(
    "copy_tasks_squad_source", "squad_source", "the SQuAD v2 source", default=SQUAD_V2,
    accepted="a SQuAD-format JSON file such as dev-v2.0.json, or a folder saved by datasets' save_to_disk",
    load=load_paragraphs,
)


def select_paragraphs(paragraphs: tuple[Paragraph, ...], edge: int, seed: int) -> list[Paragraph]:
    """The paragraphs of one bin in their selection order."""
    if edge not in BIN_EDGES:
        raise OptionError(f"squad_length length {edge} is not a bin: allowed are {BIN_EDGES} (words)")
    in_bin = [p for p in paragraphs if bin_edge(p.words) == edge]
    return sorted(in_bin, key=lambda p: _rank(seed, p.questions[0].id))


def question_and_demonstration(paragraph: Paragraph, seed: int) -> tuple[Question, Question]:
    """The test question and the demonstration: the two best-ranked questions of distinct texts."""
    ranked = sorted(paragraph.questions, key=lambda q: _rank(seed, q.id))
    test = ranked[0]
    demonstration = next(q for q in ranked[1:] if q.question.strip() != test.question.strip())
    return test, demonstration


def paragraph_doc(paragraph: Paragraph, seed: int) -> dict:
    """The doc of one paragraph: prompt, gold answers, and the teacher-forced continuation."""
    test, demonstration = question_and_demonstration(paragraph, seed)
    prompt = (f"{paragraph.context}\n\nQuestion: {demonstration.question}\nAnswer: {demonstration.answers[0]}"
              f"\n\nQuestion: {test.question}\nAnswer:")
    return {
        "prompt": prompt,
        "target": test.answers[0],
        "continuation": " " + test.answers[0],
        "answers": list(test.answers),
        "question_id": test.id,
        "demonstration_id": demonstration.id,
        "paragraph_words": paragraph.words,
    }


def make_squad_docs(length: int, seed: int, count: int, squad_source: str = SQUAD_V2) -> list[dict]:
    """The docs of task `squad_length_<length>`: up to `count` paragraphs of the bin."""
    selected = select_paragraphs(load_paragraphs(squad_source), length, seed)[:count]
    return [paragraph_doc(paragraph, seed) for paragraph in selected]


def manifest(source: str, seed: int, count: int) -> dict:
    """The selected (test question id, demonstration id) pairs per bin: the published selection."""
    paragraphs = load_paragraphs(source)
    return {
        "seed": seed,
        "docs_per_bin": count,
        "bins": {
            str(edge): [[doc["question_id"], doc["demonstration_id"]]
                        for doc in (paragraph_doc(p, seed) for p in select_paragraphs(paragraphs, edge, seed)[:count])]
            for edge in BIN_EDGES
        },
    }


def main(argv: list[str] | None = None) -> None:
    """`python -m copy_tasks.probes.families.squad_length.data SOURCE [--seed S] [--docs N]`:
    print the selection manifest."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m copy_tasks.probes.families.squad_length.data",
                                     description=main.__doc__)
    parser.add_argument("source", help=f"{SQUAD_V2}, a SQuAD-format JSON file or a saved datasets folder")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--docs", type=int, default=100, help="paragraphs per bin")
    args = parser.parse_args(argv)
    try:
        print(json.dumps(manifest(args.source, args.seed, args.docs), indent=1))
    except SquadSourceError as error:
        print(f"copy-tasks: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
