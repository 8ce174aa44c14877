"""Our probes as inspect-ai tasks: one `@task` per family, scored by the public scorer.

Each task holds the docs our lm-eval generation tasks score (`copy_tasks.probes.task_docs`,
the same seed, doc count and `copy_tasks_*` options; or the rows of an exported folder or hub
dataset, `copy-tasks export`), one sample per doc: the doc's prompt as the user's message, the
doc as the sample's metadata. The solver is `generate()` at temperature 0 with the family's
stop sequences and, per doc, its generation budget as `max_tokens`; the scorer
(`recall_verdicts`) gives each answer the verdicts of `copy_tasks.score`, our rule and the
authors', with mean and stderr of each, over all samples and per length.

    inspect eval copy_tasks/inspect_tasks.py@phonebook_copy -T lengths=10,20 -T docs=50 --model MODEL
    inspect eval copy_tasks/phonebook_copy -T lengths=10 --model MODEL    # the installed package

Task arguments: `lengths` (one, a list or comma-separated; default: the family's own), `docs`
(per length; default: the family's), `seed` (default: the tasks'), `metadata` (the tasks'
other `copy_tasks_*` options, e.g. `{"copy_tasks_text_source": "corpus.txt"}` for the C4
families) and `dataset` (an exported folder or hub dataset to read the docs from instead).

Only the generation variant: teacher-forced verdicts need the model's log-probabilities of
the continuation, which inspect's model interface does not give. The prompt is sent as it is,
a plain user message; chat models often restate its last line first, which our rule accepts
and the authors' does not (`docs/scoring.md`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, grouped, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from copy_tasks.probes.families import family_named
from copy_tasks.probes.family import GENERATION
from copy_tasks.probes.options import DOCS, SEED
from copy_tasks.probes.public_scorer import plain, score
from copy_tasks.probes.task_docs import task_rows

Lengths = int | str | Sequence[int] | None


def length_list(lengths: Lengths, default: Sequence[int]) -> list:
    """The lengths a task was given: one, a list, or comma-separated text (`-T lengths=10,20`).

    >>> length_list("10, 20", ()), length_list(10, ()), length_list(None, (5, 6))
    (['10', '20'], [10], [5, 6])
    """
    if lengths is None:
        return list(default)
    if isinstance(lengths, str):
        return [part.strip() for part in lengths.split(",") if part.strip()]
    return list(lengths) if isinstance(lengths, Sequence) else [lengths]


def docs_of(family: str, length: Any, metadata: Mapping[str, Any], dataset: str | None) -> list[dict]:
    """The docs of one length: drawn as our tasks draw them, or read from an export."""
    if dataset is None:
        return task_rows(family, length, GENERATION, metadata)
    import datasets

    split = f"length_{family_named(family).length_option().parse(length)}"
    return [plain(row) for row in datasets.load_dataset(dataset, family, split=split)]


def samples(family: str, lengths: Lengths, docs: int | None, seed: int | None,
            metadata: Mapping[str, Any] | None, dataset: str | None) -> list[Sample]:
    """One sample per doc, the doc in its metadata, ids `<length>-<index>`."""
    if dataset is not None and (seed is not None or metadata):
        raise ValueError(f"dataset={dataset!r} holds docs already made: seed and metadata make docs, so give "
                         "them without dataset (or export the docs with them: copy-tasks export)")
    options = dict(metadata or {})
    options.update({key: value for key, value in ((DOCS.key, docs), (SEED.key, seed)) if value is not None})
    found = []
    for length in length_list(lengths, family_named(family).lengths):
        docs_found = docs_of(family, length, options, dataset)
        if dataset is not None and docs is not None:
            docs_found = docs_found[:docs]
        found += [Sample(input=doc["prompt"], target=doc["target"], id=f"{doc['length']}-{doc['index']}", metadata=doc)
                  for doc in docs_found]
    return found


@solver
def budgeted_generate() -> Solver:
    """`generate()` with the doc's generation budget as `max_tokens` (the task's config holds
    temperature 0 and the family's stop sequences)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, max_tokens=int(state.metadata["generation_budget"]))

    return solve


@scorer(metrics={"*": [mean(), stderr(), grouped(mean(), "length", all=False)]})
def recall_verdicts() -> Scorer:
    """The verdicts of `copy_tasks.score` for the model's answer: our rule and the authors'."""

    async def score_answer(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        return Score(value=score(state.metadata, answer), answer=answer)

    return score_answer


def recall_task(family: str, lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                metadata: Mapping[str, Any] | None = None, dataset: str | None = None) -> Task:
    """The inspect task of one family (what each `@task` below returns)."""
    stops = list(family_named(family).stop_sequences)
    return Task(dataset=MemoryDataset(samples(family, lengths, docs, seed, metadata, dataset), name=family),
                solver=budgeted_generate(), scorer=recall_verdicts(),
                config=GenerateConfig(temperature=0.0, stop_seqs=stops))


@task
def phonebook_copy(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                   metadata: dict | None = None, dataset: str | None = None) -> Task:
    """A person's number from a phone book read once."""
    return recall_task("phonebook_copy", lengths, docs, seed, metadata, dataset)


@task
def random_copy(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                metadata: dict | None = None, dataset: str | None = None) -> Task:
    """Copy a uniform random string."""
    return recall_task("random_copy", lengths, docs, seed, metadata, dataset)


@task
def dup_ngram_copy(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                   metadata: dict | None = None, dataset: str | None = None) -> Task:
    """Copy a random string in which one n-gram occurs twice."""
    return recall_task("dup_ngram_copy", lengths, docs, seed, metadata, dataset)


@task
def lookup_suffix(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                  metadata: dict | None = None, dataset: str | None = None) -> Task:
    """The letters after a key, the key given after the string."""
    return recall_task("lookup_suffix", lengths, docs, seed, metadata, dataset)


@task
def lookup_prefix(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                  metadata: dict | None = None, dataset: str | None = None) -> Task:
    """The letters after a key, the key given before the string."""
    return recall_task("lookup_prefix", lengths, docs, seed, metadata, dataset)


@task
def c4_copy(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
            metadata: dict | None = None, dataset: str | None = None) -> Task:
    """Copy a passage of natural text (C4, or `copy_tasks_text_source` in `metadata`)."""
    return recall_task("c4_copy", lengths, docs, seed, metadata, dataset)


@task
def c4_copy_shuffled(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                     metadata: dict | None = None, dataset: str | None = None) -> Task:
    """Copy a passage whose words are shuffled."""
    return recall_task("c4_copy_shuffled", lengths, docs, seed, metadata, dataset)


@task
def squad_length(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                 metadata: dict | None = None, dataset: str | None = None) -> Task:
    """SQuAD v2 questions by paragraph length (`copy_tasks_squad_source` in `metadata` for a local file)."""
    return recall_task("squad_length", lengths, docs, seed, metadata, dataset)
