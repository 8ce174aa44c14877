"""What a probe family declares, and the registry its declaration enters.

Each module of `copy_tasks.probes.families` declares its families, with `register(Family(...))`:
what it probes, unit, lengths, doc count, options, generator, scorer, stop sequences, metrics,
versions and its scoring group. Everything else is derived from
that declaration: the family table (`copy-tasks list` and the README's), the task YAMLs
(`copy_tasks.harness.task_yamls`), the option checks, the conformance battery's groups and the
family-contract tests. (Which lengths `copy-tasks suite` runs is the suite's: `copy_tasks.experiments.suite`.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from copy_tasks.probes.budgets import generation_budget
from copy_tasks.probes.chat import ChatPrompt, chat_prompt, given_start, last_line, readings, restated_answers
from copy_tasks.probes.options import IntOption, Option

TEACHER_FORCED_SUFFIX = "_tf"
GENERATION = "generation"
TEACHER_FORCED = "teacher_forced"
VARIANTS = (GENERATION, TEACHER_FORCED)
QUERY_ACCURACY = "query_accuracy"  # of a doc of several questions (`Family.queries`): the fraction right


@dataclass(frozen=True)
class Family:
    """One probe family. Task `<name>_<length>`, teacher-forced task `<name>_tf_<length>`."""

    name: str
    summary: str  # what a doc asks, in a few words (the families table)
    unit: str
    lengths: tuple[int, ...]
    default_docs: int
    min_length: int
    # Draws one doc from its own random stream: (rng, length, **options) -> doc (None for a
    # family that selects docs from a dataset, `select_docs`).
    draw_doc: Callable[..., dict] | None
    # (one reading of the answer, doc) -> our metrics; `score_our_rule` takes the better of the
    # answer's readings (with or without a restatement of the prompt's last line).
    score_one_reading: Callable[[str, dict], dict[str, float]]
    # (generation, doc) -> the authors' rule: their post-processing of the generation and their
    # comparison, as metrics named `authors_*` (`authors_metrics`), reported beside ours.
    score_authors_rule: Callable[[str, dict], dict[str, float]]
    stop_sequences: tuple[str, ...]  # the generation's `until`
    # The conformance battery's group: families in one group read their answers alike, so a
    # style of answering gets the same verdict in all of them (`copy_tasks.probes.conformance`).
    scoring_group: str
    # What the docs are drawn from that needs a download, and the local alternative; "" for
    # generated docs.
    downloads: str = ""
    # The longest length a task may ask for (`copy-tasks lengths`, a task's YAML), checked before
    # any doc is drawn: about a million tokens of prompt, beyond every model's context today.
    max_length: int = 100_000
    # The generation metrics besides `exact_match` (its partial credit), in the order reported.
    partial_credit: tuple[str, ...] = ("prefix_match",)
    authors_metrics: tuple[str, ...] = ("authors_exact_match",)
    # Families with the same data key draw identical random data for doc i, and share a
    # folder (and README) in task_configs/.
    data_key: str = ""
    options: tuple[Option, ...] = field(default_factory=tuple)
    # Families that select docs from a dataset instead of drawing each one:
    # (length, seed, count, **options) -> up to `count` docs. Their lengths are fixed bins.
    select_docs: Callable[..., list[dict]] | None = None
    # The answers the generation scorer accepts, as the model would write them after the
    # prompt (each may also follow a restatement of the prompt's last line:
    # `accepted_answers`); the generation budget fits the longest (`copy_tasks.probes.budgets`).
    answers: Callable[[dict], Sequence[str]] = lambda doc: (doc["continuation"],)
    # Under a chat template (`copy_tasks.probes.chat`): what the user's turn says first, and
    # where in the prompt the assistant's prefill starts.
    chat_instruction: str = "Read the text below, then finish its last line."
    chat_prefill_at: Callable[[str], int] = last_line
    # The version of the data: doc i is drawn from (family, data_version, length, seed, i).
    # Bumped only when the docs change, never for a change of prompt handling or scoring
    # alone, which bumps `task_version`, the lm-eval task version (see the family's README).
    data_version: str = "1.0"
    task_version: str = "3.1"
    # What each of the family's own doc fields holds (beyond prompt, continuation, target,
    # generation_budget, family, length, unit, seed, index): (field, meaning), for the dataset
    # card of an export; the family contract checks that every field has one.
    field_notes: tuple[tuple[str, str], ...] = ()
    # A doc that asks several questions in turn (`mqar`): (doc) -> one doc per question, each
    # with the prompt up to its question (the questions before it answered rightly) and its
    # target and continuation; the first is the doc itself. Each is one lm-eval request, and the
    # doc's metrics combine theirs (`combine`). None: a doc is one question, one request.
    queries: Callable[[dict], list[dict]] | None = None
    # Refuses a length the family cannot draw under its options: (length, **options) -> None, a
    # ValueError naming the value and the limit otherwise; a run checks it before any model loads
    # (`copy_tasks.probes.run_checks`). None: every length from min_length to max_length can be drawn.
    check_length: Callable[..., None] | None = None
    # Where a generation may stop before its stop sequence (`answer_settled`): (one reading of
    # the answer, doc) -> whether our metrics of that reading are the same whatever text follows
    # it, and (generation, doc) -> the same of the authors' metrics. None: no such rule (the
    # generation runs to its stop sequence or its budget).
    our_reading_settled: Callable[[str, dict], bool] | None = None
    authors_settled: Callable[[str, dict], bool] | None = None

    @property
    def needs_download(self) -> bool:
        return bool(self.downloads)

    def length_option(self) -> IntOption:
        """The option that checks a length of this family."""
        return IntOption("copy_tasks_length", "length", f"a {self.name} length ({self.unit})", None,
                         self.min_length, self.max_length)

    def task_name(self, length: int, teacher_forced: bool = False) -> str:
        return f"{self.name}{TEACHER_FORCED_SUFFIX if teacher_forced else ''}_{length}"

    def request_docs(self, doc: dict) -> list[dict]:
        """The docs of a doc's lm-eval requests: the doc, or one per question (`queries`)."""
        return [doc] if self.queries is None else self.queries(doc)

    def combine(self, scored: list[dict[str, float]]) -> dict[str, float]:
        """A doc's metrics from its requests': the one request's, or over its questions:
        `exact_match` when every question is right, `query_accuracy` the fraction that is, and
        every other metric the mean over the questions.

        >>> mqar = REGISTRY["mqar"]
        >>> mqar.combine([{"exact_match": 1.0, "logprob": -1.0}, {"exact_match": 0.0, "logprob": -3.0}])
        {'exact_match': 0.0, 'logprob': -2.0, 'query_accuracy': 0.5}
        """
        if self.queries is None:
            (only,) = scored
            return only
        mean = {name: sum(metrics[name] for metrics in scored) / len(scored) for name in scored[0]}
        return mean | {"exact_match": min(metrics["exact_match"] for metrics in scored),
                       QUERY_ACCURACY: mean["exact_match"]}

    @property
    def teacher_forced_metrics(self) -> tuple[str, ...]:
        """Every metric a teacher-forced task reports but `overflow`, in order."""
        return ("exact_match", *((QUERY_ACCURACY,) if self.queries else ()), "logprob", "bits_per_char")

    @property
    def generation_metrics(self) -> tuple[str, ...]:
        """Every metric a generation task reports but `overflow`, in order: ours, then the authors'."""
        return ("exact_match", *self.partial_credit, *self.authors_metrics)

    def chat_form(self, doc: dict) -> ChatPrompt:
        """The doc as a chat: the user's turn and the assistant's prefill."""
        return chat_prompt(doc["prompt"], self.chat_instruction, self.chat_prefill_at)

    def score_our_rule(self, generation: str, doc: dict) -> dict[str, float]:
        """Our metrics of one generated answer: of its better reading, with or without a
        restatement of the prompt's last line (`copy_tasks.probes.chat.readings`); on a tie,
        the answer as written."""
        scored = [self.score_one_reading(reading, doc) for reading in readings(generation, given_start(doc["prompt"]))]
        return max(scored, key=lambda metrics: [metrics[name] for name in ("exact_match", *self.partial_credit)])

    def score_both_rules(self, generation: str, doc: dict) -> dict[str, float]:
        """Our metrics and the authors' (who read the answer as written) of one generated answer."""
        return self.score_our_rule(generation, doc) | self.score_authors_rule(generation, doc)

    def answer_settled(self, text: str, doc: dict) -> bool:
        """Whether the start of a generated answer already holds all that both rules read: every
        text it may go on with (`text + more`, cut at the stop sequences) gets the same metrics,
        ours and the authors', as `text` itself, so the generation may stop here. Our metrics
        are those of the better reading (`score_our_rule`), so every reading must be settled,
        and no new one may appear: while the answer may still turn out to restate the prompt's
        last line (a prefix of it, after spaces), it is not settled. False for a family that
        declares no rule (`our_reading_settled`, `authors_settled`).

        >>> book = REGISTRY["phonebook_copy"]
        >>> doc = {"prompt": "Ann Lee: 6093237777\\n\\nAnn Lee:", "target": "6093237777"}
        >>> [book.answer_settled(text, doc) for text in (" 6093237777", " 6093237777 A", " Ann", " Bo")]
        [False, True, False, True]

        " 6093237777" is not settled: a newline next makes it right under both rules, " Ann Lee"
        next wrong under the authors'; after " 6093237777 A" both verdicts are final (ours
        right, theirs wrong). " Ann" may be the start of a restated "Ann Lee:"; " Bo" is wrong
        whatever follows.
        """
        if self.our_reading_settled is None or self.authors_settled is None:
            return False
        start = given_start(doc["prompt"])
        restating = text.lstrip()
        if start and len(restating) < len(start) and start.startswith(restating):
            return False
        return (all(self.our_reading_settled(reading, doc) for reading in readings(text, start))
                and self.authors_settled(text, doc))

    def score_generations(self, generations: Sequence[str], doc: dict) -> dict[str, float]:
        """Both rules' metrics of a doc from the answers to its requests (`request_docs`), in order."""
        requests = self.request_docs(doc)
        if len(generations) != len(requests):
            raise ValueError(f"a {self.name} doc asks {len(requests)} question(s); got {len(generations)} answer(s)")
        return self.combine([self.score_both_rules(text, request) for text, request in zip(generations, requests)])

    def accepted_answers(self, doc: dict) -> tuple[str, ...]:
        """Every answer our rule accepts, as written after the prompt."""
        return restated_answers(self.answers(doc), given_start(doc["prompt"]))

    def generation_budget(self, doc: dict) -> int:
        """New tokens that fit every answer the scorer accepts, in any segmentation (to any of
        the doc's questions)."""
        return max(generation_budget(self.accepted_answers(question)) for question in self.request_docs(doc))

    @property
    def data_name(self) -> str:
        """The name of its data: it keys the random draws of doc i and names its folder in
        task_configs/ (families with one `data_key` share both)."""
        return self.data_key or self.name


def against_target(score: Callable[[str, str], dict[str, float]]) -> Callable[[str, dict], dict[str, float]]:
    """A family's scorer from a function of (generation, the doc's target)."""
    return lambda generation, doc: score(generation, doc["target"])


REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Enter a family into the table (`copy_tasks.probes.families.FAMILIES`); returns it."""
    if REGISTRY.get(family.name, family) is not family:
        raise ValueError(f"a family named {family.name!r} is already registered")
    REGISTRY[family.name] = family
    return family
