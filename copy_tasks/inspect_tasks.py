"""Our probes as inspect-ai tasks: one task per family of the table, scored by the public scorer.

Each task holds the docs our lm-eval generation tasks score (`copy_tasks.probes.task_docs`,
the same seed, doc count and `copy_tasks_*` options; or the rows of an exported folder or hub
dataset, `copy-tasks export`), one sample per doc: the doc's prompt as the user's message, the
doc as the sample's metadata. The solver is `generate()` at temperature 0 with the family's
stop sequences and, per doc, its generation budget as `max_tokens` (a doc of several questions,
`mqar`, one generation per question); the scorer (`recall_verdicts`) gives each answer the
verdicts of `copy_tasks.score`, our rule and the authors', with mean and stderr of each, over all
samples and per length.

    inspect eval copy_tasks/phonebook_copy -T lengths=10,20 -T docs=50 --model MODEL

(the installed package's tasks, found through its `inspect_ai` entry point; the tasks are made
from the family table, so inspect's reading of a file's `@task` functions does not list them).

Task arguments: `lengths` (one, a list or comma-separated; default: the family's own), `docs`
(per length; default: the family's), `seed` (default: the tasks'), `metadata` (the tasks'
other `copy_tasks_*` options, e.g. `{"copy_tasks_text_source": "corpus.txt"}` for the C4
families) and `dataset` (an exported folder or hub dataset to read the docs from instead).

Only the generation variant: teacher-forced verdicts need the model's log-probabilities of
the continuation, which inspect's model interface does not give. The prompt is sent as it is,
a plain user message; chat models often restate its last line first, which our rule accepts
and the authors' does not (`docs/scoring.md`).

inspect-ai is an optional extra (`copy-tasks[inspect]`): without it this module still imports
(the package's doctests run), defines no task, and says what to install when one is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from copy_tasks.probes.families import FAMILIES, family_named, user_options
from copy_tasks.probes.family import GENERATION, Family
from copy_tasks.probes.options import DOCS, PREFIX, SEED, OptionError, parse_present
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


try:
    import inspect_ai  # noqa: F401  (the optional extra)

    HAS_INSPECT = True
except ImportError:
    HAS_INSPECT = False
NEEDS_INSPECT = "the inspect tasks need inspect-ai: pip install 'copy-tasks[inspect]'"


def samples(family: str, lengths: Lengths, docs: int | None, seed: int | None,
            metadata: Mapping[str, Any] | None, dataset: str | None) -> list:
    """One sample per doc, the doc in its metadata, ids `<length>-<index>`."""
    if dataset is not None and (seed is not None or metadata):
        raise ValueError(f"dataset={dataset!r} holds docs already made: seed and metadata make docs, so give "
                         "them without dataset (or export the docs with them: copy-tasks export)")
    options = dict(metadata or {})
    if strangers := [key for key in options if not str(key).startswith(PREFIX)]:
        raise OptionError(f"metadata key {strangers[0]!r} is not an option: metadata takes copy-tasks' options, "
                          f"{', '.join(sorted(user_options()))}")
    parse_present(options, user_options())  # an unknown copy_tasks_ key or a bad value: named
    if docs is not None:
        docs = DOCS.parse(docs)
    options.update({key: value for key, value in ((DOCS.key, docs), (SEED.key, seed)) if value is not None})
    from inspect_ai.dataset import Sample

    found = []
    wanted = [family_named(family).length_option().parse(length)
              for length in length_list(lengths, family_named(family).lengths)]
    if twice := sorted({length for length in wanted if wanted.count(length) > 1}):
        raise OptionError(f"lengths: {', '.join(map(str, twice))} given more than once; give each length once")
    for length in wanted:
        docs_found = docs_of(family, length, options, dataset)
        if dataset is not None and docs is not None:
            docs_found = docs_found[:docs]
        found += [Sample(input=doc["prompt"], target=doc["target"], id=f"{doc['length']}-{doc['index']}", metadata=doc)
                  for doc in docs_found]
    return found


ANSWERS = "copy_tasks_answers"  # in a sample's store: the answers to a doc's questions, in order


def budgeted_generate():
    """`generate()` with the doc's generation budget as `max_tokens` (the task's config holds
    temperature 0 and the family's stop sequences); a doc of several questions (`mqar`) is
    generated once per question, each question's prompt the only message, and the answers are
    kept in the sample's store (`ANSWERS`)."""
    from inspect_ai.solver import solver

    def budgeted_generate():
        async def solve(state, generate):
            budget = int(state.metadata["generation_budget"])
            family = family_named(state.metadata["family"])
            if family.queries is None:
                return await generate(state, max_tokens=budget)
            from inspect_ai.model import ChatMessageUser

            answers = []
            for question in family.request_docs(plain(state.metadata)):  # each question its own prompt
                state.messages = [ChatMessageUser(content=question["prompt"])]
                state = await generate(state, max_tokens=budget)
                answers.append(state.output.completion)
            state.store.set(ANSWERS, answers)
            return state

        return solve

    return solver(budgeted_generate)()


def recall_verdicts():
    """The verdicts of `copy_tasks.score` for the model's answer: our rule and the authors'."""
    from inspect_ai.scorer import Score, grouped, mean, scorer, stderr

    def recall_verdicts():
        async def score_answer(state, target):
            answers = state.store.get(ANSWERS)
            answer = state.output.completion if answers is None else answers
            return Score(value=score(state.metadata, answer), answer=answer if answers is None else "\n".join(answers))

        return score_answer

    return scorer(metrics={"*": [mean(), stderr(), grouped(mean(), "length", all=False)]})(recall_verdicts)()


def recall_task(family: str, lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
                metadata: Mapping[str, Any] | None = None, dataset: str | None = None):
    """The inspect task of one family (what each family's task returns)."""
    if not HAS_INSPECT:
        raise ModuleNotFoundError(NEEDS_INSPECT)
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.model import GenerateConfig

    stops = list(family_named(family).stop_sequences)
    return Task(dataset=MemoryDataset(samples(family, lengths, docs, seed, metadata, dataset), name=family),
                solver=budgeted_generate(), scorer=recall_verdicts(),
                config=GenerateConfig(temperature=0.0, stop_seqs=stops))


def family_task(family: Family):
    """The `@task` of one family, named after it (`copy_tasks/<family>` in inspect's registry),
    with the task arguments above; its docstring is the family's summary."""

    from inspect_ai import task

    def make(lengths: Lengths = None, docs: int | None = None, seed: int | None = None,
             metadata: dict | None = None, dataset: str | None = None):
        return recall_task(family.name, lengths, docs, seed, metadata, dataset)

    make.__name__ = make.__qualname__ = family.name
    make.__doc__ = f"{family.summary[0].upper()}{family.summary[1:]} ({family.unit})."
    return task(name=family.name)(make)


# One task per family of the table, new families included: `inspect_tasks.phonebook_copy(...)`.
if HAS_INSPECT:
    globals().update({family.name: family_task(family) for family in FAMILIES.values()})
