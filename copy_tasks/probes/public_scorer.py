"""The public scorer: the verdicts our lm-eval tasks give, for a doc and a model's answer.

`copy_tasks.score(doc, answer)` takes a doc (a row of an exported dataset, `copy-tasks export`,
or of `copy_tasks.probes.task_docs.task_rows`) and the text a model wrote after the doc's
prompt, and returns what our generation task reports for it, under both rules
(`docs/scoring.md`): ours (`exact_match` and its partial credit: `prefix_match`,
`symbol_accuracy` or `f1`, `Family.score_our_rule`) and the authors' (`authors_exact_match`, SQuAD
also `authors_f1`, `Family.score_authors_rule`). The answer is cut before the first of the family's
stop sequences, as lm-eval's backends cut it, so a model run without stop sequences gets the
verdict it would get in our task.

    >>> doc = {"family": "phonebook_copy", "prompt": "Ann Lee: 6093237777\\n\\nAnn Lee:",
    ...        "target": "6093237777", "continuation": " 6093237777"}
    >>> score(doc, " 6093237777\\nBob Day: 7000000000")
    {'exact_match': 1.0, 'prefix_match': 1.0, 'authors_exact_match': 1.0}
    >>> score(doc, "Ann Lee: 6093237777")      # restates the prompt's last line: ours only
    {'exact_match': 1.0, 'prefix_match': 1.0, 'authors_exact_match': 0.0}

What it cannot see: whether the prompt fitted the model (our tasks report `overflow` = 1 and
no score for a doc the backend would cut) and the generation budget (a backend stops after
the doc's `generation_budget` new tokens; a budget fits every accepted answer in any
segmentation, so only a model that runs on past its answer is cut there).

Teacher-forced tasks score no text: their verdict is lm-eval's `is_greedy` (every token of
the tokenizer's own segmentation of the continuation is the model's argmax), which only the
model can compute. Given that and the continuation's log-probability,
`score_teacher_forced(doc, logprob, is_greedy)` gives the teacher-forced task's metrics.

A doc of a family that asks several questions in turn (`mqar`) is several prompts
(`questions(doc)`); `score` then takes the list of answers, and `score_teacher_forced` the
lists of log-probabilities and `is_greedy`, one per question.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.probes.families import family_named


def cut_at_stops(text: str, until: Iterable[str]) -> str:
    """`text` up to its first stop sequence, as lm-eval's backends return generations.

    >>> cut_at_stops(" 123\\nAnn", ["\\n"]), cut_at_stops("ab.c\\nd", ["\\n", "."]), cut_at_stops("abc", [])
    (' 123', 'ab', 'abc')
    """
    for stop in until:
        if stop and stop in text:
            text = text[: text.index(stop)]
    return text


def plain(value: Any) -> Any:
    """A doc's value as plain Python: what a Parquet reader gives as numpy arrays or scalars
    (pandas, pyarrow) or tuples becomes lists and Python numbers, as `datasets` gives them.

    >>> import numpy as np
    >>> plain({"answers": np.array(["a", "b"]), "length": np.int64(3), "pair": (1, 2)})
    {'answers': ['a', 'b'], 'length': 3, 'pair': [1, 2]}

    A pandas row (`pd.read_parquet(f).iloc[0]`, a Series) is read as the mapping it is.
    """
    if not isinstance(value, Mapping) and callable(getattr(value, "to_dict", None)):  # a pandas row
        value = value.to_dict()
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if hasattr(value, "tolist") and not isinstance(value, str):  # numpy arrays and scalars
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def questions(doc: Mapping[str, Any]) -> list[dict]:
    """The questions a doc asks, each a doc with its own `prompt`, `target` and `continuation`:
    the doc itself, or for a family of several questions a doc (`mqar`) one per question, whose
    prompt holds the questions before it answered rightly. A model answers each prompt.

    >>> doc = {"family": "mqar", "prompt": "ab: 1\\ncd: 2\\n\\ncd:", "target": "2", "continuation": " 2",
    ...        "query_keys": ["cd", "ab"], "query_values": ["2", "1"]}
    >>> [question["prompt"].split("\\n\\n")[1] for question in questions(doc)]
    ['cd:', 'cd: 2\\nab:']
    """
    doc = checked_doc(doc, "prompt", "target")
    return family_named(doc["family"]).request_docs(doc)


def score(doc: Mapping[str, Any], answer: str | list[str]) -> dict[str, float]:
    """Our rule's and the authors' metrics of `answer`, the text a model wrote after
    `doc["prompt"]` (cut at the family's stop sequences here), as our generation task
    `<family>_<length>` reports them for that doc (its `overflow` aside). For a doc of several
    questions (`questions`), `answer` is the list of the texts written after each question's prompt.

    >>> doc = {"family": "mqar", "prompt": "ab: 1\\ncd: 2\\n\\ncd:", "target": "2", "continuation": " 2",
    ...        "query_keys": ["cd", "ab"], "query_values": ["2", "1"]}
    >>> score(doc, [" 2", " 7\\nab: 1"])
    {'exact_match': 0.0, 'query_accuracy': 0.5}
    """
    doc = checked_doc(doc, "prompt", "target")
    family = family_named(doc["family"])
    several = family.queries is not None
    if not isinstance(answer, list if several else str):
        wanted = "a list of the texts written after each question's prompt" if several else "the text the model wrote"
        raise TypeError(f"answer must be {wanted} (a {'list of str' if several else 'str'}) for a {family.name} doc, "
                        f"got {type(answer).__name__}")
    answers = answer if several else [answer]
    for number, text in enumerate(answers):
        if not isinstance(text, str):
            raise TypeError(f"answer[{number}] must be the text written after question {number + 1}'s prompt (a str) "
                            f"for a {family.name} doc, got {type(text).__name__}: {text!r}")
    return family.score_generations([cut_at_stops(text, family.stop_sequences) for text in answers], doc)


REQUIRED = ("family", "prompt", "target", "continuation")  # what every doc of ours holds


def checked_doc(doc: Any, *non_empty: str) -> dict:
    """`doc` as plain data, with the keys every doc of ours holds and the named ones not empty;
    a ValueError naming what is missing otherwise.

    >>> checked_doc({"family": "random_copy", "prompt": "a", "target": "", "continuation": ""}, "target")
    Traceback (most recent call last):
    ValueError: doc['target'] is empty: a doc of ours has a non-empty target (a row of copy-tasks export)
    """
    doc = plain(doc)
    if not isinstance(doc, Mapping):
        raise TypeError(f"doc must be a mapping (a row of copy-tasks export), got {type(doc).__name__}")
    if missing := [key for key in REQUIRED if key not in doc]:
        raise ValueError(f"doc lacks {', '.join(map(repr, missing))}: a doc of ours has {', '.join(REQUIRED)} "
                         "(a row of copy-tasks export)")
    for key in non_empty:
        if not isinstance(doc[key], str) or not doc[key]:
            raise ValueError(f"doc[{key!r}] is empty: a doc of ours has a non-empty {key} (a row of copy-tasks "
                             "export)")
    return doc


def score_teacher_forced(doc: Mapping[str, Any], logprob: float | list[float],
                         is_greedy: bool | list[bool]) -> dict[str, float]:
    """The teacher-forced task's metrics of a doc, from what the model computes for its
    continuation: the log-probability (natural log) and whether every token is the argmax. For
    a doc of several questions (`questions`), `logprob` and `is_greedy` are lists, one per
    question's continuation after its prompt, in order; the doc's metrics combine theirs
    (`Family.combine`: `exact_match` when every question's is, `query_accuracy` the fraction).

    exact_match is `is_greedy`: greedy decoding would have written the continuation, token for
    token. bits_per_char is the answer's information under the model, per character: it
    separates models where exact match is 0.

    >>> score_teacher_forced({"family": "random_copy", "continuation": " 12"}, -math.log(8), False)
    {'exact_match': 0.0, 'logprob': -2.0794415416798357, 'bits_per_char': 1.0}
    >>> score_teacher_forced({"family": "random_copy", "continuation": " 12"}, 5.0, True)
    Traceback (most recent call last):
    ValueError: logprob=5.0 is not a log-probability: it must be 0 or below (the natural log of a probability)
    >>> doc = {"family": "mqar", "prompt": "ab: 1\\ncd: 2\\n\\ncd:", "target": "2", "continuation": " 2",
    ...        "query_keys": ["cd", "ab"], "query_values": ["2", "1"]}
    >>> score_teacher_forced(doc, [-1.0, -3.0], [True, False])
    {'exact_match': 0.0, 'logprob': -2.0, 'bits_per_char': 1.4426950408889634, 'query_accuracy': 0.5}
    """
    plain_doc = plain(doc)
    if not isinstance(plain_doc, Mapping) or "family" not in plain_doc:
        raise ValueError("doc must be a mapping with a 'family' (a row of copy-tasks export)")
    family = family_named(plain_doc["family"])
    if family.queries is None:
        return teacher_forced_metrics(plain_doc, [(logprob, is_greedy)])
    if not (isinstance(logprob, list) and isinstance(is_greedy, list)):
        raise TypeError(f"logprob and is_greedy must be lists, one per question (copy_tasks.questions(doc)), for a "
                        f"{family.name} doc, got {type(logprob).__name__} and {type(is_greedy).__name__}")
    if len(logprob) != len(is_greedy):
        raise ValueError(f"logprob and is_greedy must give one value per question each, got {len(logprob)} and "
                         f"{len(is_greedy)}")
    return teacher_forced_metrics(checked_doc(plain_doc, "prompt", "target"), list(zip(logprob, is_greedy)))


def teacher_forced_metrics(doc: dict, scored: list[tuple[float, bool]]) -> dict[str, float]:
    """A doc's teacher-forced metrics from one (logprob, is_greedy) per request of it
    (`Family.request_docs`), as lm-eval passes them to `process_results`, combined over its
    questions (`Family.combine`); a ValueError for another count."""
    family = family_named(doc["family"])
    requests = family.request_docs(doc)
    if len(scored) != len(requests):
        raise ValueError(f"a {family.name} doc asks {len(requests)} question(s); got {len(scored)} "
                         "(logprob, is_greedy) pair(s)")
    return family.combine([continuation_metrics(request, logprob, is_greedy)
                           for request, (logprob, is_greedy) in zip(requests, scored)])


def continuation_metrics(request: Mapping[str, Any], logprob: float, is_greedy: bool) -> dict[str, float]:
    """The teacher-forced metrics of one request's continuation (`score_teacher_forced`)."""
    continuation = request.get("continuation")
    if not isinstance(continuation, str) or not continuation:
        raise ValueError("doc['continuation'] is missing or empty: a doc of ours has a non-empty continuation "
                         "(a row of copy-tasks export)")
    if not isinstance(logprob, numbers.Real) or math.isnan(logprob) or logprob > 0:
        raise ValueError(f"logprob={logprob!r} is not a log-probability: it must be 0 or below (the natural log of "
                         "a probability)")
    return {
        "exact_match": float(is_greedy),
        "logprob": float(logprob),
        "bits_per_char": -float(logprob) / math.log(2) / len(continuation),
    }
