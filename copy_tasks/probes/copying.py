"""What the copy families share: the prompt, the continuation and the scorer of a copy, and the
family declaration they all use (`c4_copy`, `c4_copy_shuffled`, `random_copy`,
`dup_ngram_copy`).

Every copy doc has the authors' prompt `{p}\\n\\n{p}\\n\\n{first word}`: the passage, then the
passage again, then its first word, after which the model must write the rest of the passage;
the generation stops at a blank line. Units are words (symbols for the random strings), and a
passage is stored with single spaces between its words.
"""

from __future__ import annotations

from collections.abc import Callable

from copy_tasks.probes.family import Family, SuiteLengths, against_target
from copy_tasks.probes.options import Option


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


def copy_family(name: str, summary: str, unit: str, lengths: tuple[int, ...], make_doc: Callable[..., dict], *,
                default_docs: int = 200, min_length: int = 2, max_length: int = 100_000, downloads: str = "",
                data_key: str = "", options: tuple[Option, ...] = (), suite: SuiteLengths | None = None) -> Family:
    """A copy family: the copy prompt, stop at a blank line, scored by `score_copy` (ours) and
    `score_copy_authors`; scoring group `copies`."""
    return Family(
        name=name, summary=summary, unit=unit, lengths=lengths, default_docs=default_docs, min_length=min_length,
        max_length=max_length,
        downloads=downloads, make_doc=make_doc, score_generation=against_target(score_copy),
        score_authors=against_target(score_copy_authors), scoring_group="copies", suite=suite,
        stop_sequences=("\n\n",), data_key=data_key, options=options,
        chat_instruction="Here is a passage, then the same passage again. Write it out once more, word for word, "
                         "starting from its first word.",
    )
