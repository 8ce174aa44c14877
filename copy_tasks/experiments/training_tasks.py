"""The tasks `copy-tasks train` trains its models on, each declared once (`TrainingTask`) in one
table (`TRAINING_TASKS`, in the order a run trains and reports them): the probe family whose
generator draws its training docs (in the authors' formats, `options`) and whose teacher-forced
tasks score its models, the tokenizer's extra symbols, the lengths it is trained and scored at
(both from the recipe: `copy_tasks.experiments.recipes`), what its checkpoints are scored on,
the reference models scored beside it, the experiment of the report it is read in
(`copy_tasks.experiments.train_report`) and the leaderboard section its run becomes. The
examples (`training_data`), the loop (`training`), the evaluation plan (`train_evaluation`), the
report and the command (`train_command`) read the declaration; none branches on a task's name.

- `copy`: `$<letters>|<letters>.` (`random_copy` in its `paper` format);
- `lookup_prefix`: `$<key>|<letters>|<answer>.`; `lookup_suffix`: `$<letters>|<key><answer>.`
  (the lookup families in their `paper` format: key 4 letters, answer 4);
- `mqar`: Zoology's multi-query associative recall (`mqar` in its `zoology` format: K pairs of a
  key symbol and a value symbol, then every key once in random order, each followed by its value,
  as Zoology's training asks them; the scored tasks ask 8), the loss on every value and nothing
  else (as Zoology's: no end mark, `end_mark`); not one of the paper's tasks, the probe
  architecture papers report.

The lookup models start from their seed's copy model (`starts_from`), which a run trains first.

A worked example: the copy task of the quick recipe (copies of 5 to 10 letters) draws its
strings from `random_copy`; its final models are scored from half its longest training length to
10 times it and on the duplicated n-grams, its checkpoints at the training lengths, the 5-gram
copier beside them; the three paper's tasks are read together in the paper's experiments, their
run published as `training.md`, a run of `mqar` alone as `training_mqar.md`:

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> copy, quick = TRAINING_TASKS["copy"], RECIPES["quick"]
    >>> copy.family, copy.options, copy.trained_lengths(quick)
    ('random_copy', {'fmt': 'paper'}, (5, 10))
    >>> copy.scored_on(quick)
    (('random_copy', (5, 10, 15, 20, 25, 38, 50, 75, 100)), ('dup_ngram_copy', (1, 2, 3, 4, 5, 6, 7, 8)))
    >>> copy.checkpoints_scored_on(quick), copy.references
    ((('random_copy', (5, 10)),), (Reference(label='ngram_copier-5', backend='ngram_copier', model_args='n=5'),))
    >>> TRAINING_TASKS["lookup_suffix"].scored_on(quick), TRAINING_TASKS["mqar"].scored_on(quick)
    ((('lookup_suffix', (8, 12, 20, 30, 40)),), (('mqar', (8, 16, 32, 64)),))
    >>> PAPER_TASKS, [(task.experiment, task.section) for task in TRAINING_TASKS.values()][-2:]
    (('copy', 'lookup_prefix', 'lookup_suffix'), [('paper', 'training'), ('mqar', 'training_mqar')])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from copy_tasks.experiments.recipes import Recipe
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.dup_ngram_copy import LENGTHS as DUPLICATED_NGRAMS
from copy_tasks.probes.families.mqar import ZOOLOGY_KEYS, ZOOLOGY_VALUES

PAPER = "paper"  # the experiment of the paper's tasks (`TrainingTask.experiment`)

Scored = tuple[tuple[str, tuple[int, ...]], ...]  # (family, lengths): its teacher-forced tasks at those lengths


@dataclass(frozen=True)
class Reference:
    """A model scored beside a task's trained models, on the same tasks: its results' label, the
    backend that runs it and that backend's model arguments."""

    label: str
    backend: str
    model_args: str


@dataclass(frozen=True)
class TrainingTask:
    """One task `copy-tasks train` trains models on (`--tasks <name>`): its models live under
    `<out>/<name>/`, are labelled `trained-<name>-...` and are trained for `recipe.phases[name]`."""

    name: str
    family: str  # the probe family that draws its training docs (in the training domain) and scores its models
    options: dict = field(hash=False)  # the family generator's options: the training format
    trained_lengths: Callable[[Recipe], tuple[int, int]]  # lengths drawn uniformly from this range
    scored_on: Callable[[Recipe], Scored]  # what its final models are scored on
    # The report's experiment it is read in (`train_report.EXPERIMENTS`): the paper's (`PAPER`)
    # compares its three tasks, which a run trains together or not at all.
    experiment: str
    section: str  # the leaderboard section (`<section>.md`) and the record's name (`<section>.json`) of its run
    symbols: tuple[str, ...] = ()  # one-character tokens its tokenizer adds to `char_tokenizer`'s
    # What each checkpoint (`recipe.checkpoint_steps`) is scored on; None: only the final model is saved.
    checkpoints_scored_on: Callable[[Recipe], Scored] | None = None
    references: tuple[Reference, ...] = ()  # scored on `scored_on` beside its models
    # The task whose final model of the same architecture, seed and width a model of this task starts
    # from (trained first); None: from scratch. A lookup's answer after its first letter is a copy.
    starts_from: str | None = None
    # Whether an example ends with END (`.`) and the model is trained to write it after the last
    # answer. Not for `mqar`: that loss, the one prediction made at a value, kept every attention
    # model at chance (docs/training.md, "What kept the grid at chance"); Zoology has no end mark.
    end_mark: bool = True


def copy_lengths(recipe: Recipe) -> tuple[int, ...]:
    """From half the longest training length to 10 times it (experiment 1).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> copy_lengths(RECIPES["full"])
    (10, 20, 30, 40, 50, 75, 100, 150, 200)
    """
    longest = recipe.copy_lengths[1]
    steps = (0.5, 1.0, 1.5, 2.0, 2.5, 3.75, 5.0, 7.5, 10.0)
    return tuple(sorted({max(2, round(longest * step)) for step in steps}))


def training_lengths(recipe: Recipe) -> tuple[int, ...]:
    """Half the longest copy training length and the longest: where checkpoints are scored (experiment 4)."""
    return tuple(sorted({recipe.copy_lengths[1] // 2, recipe.copy_lengths[1]}))


def lookup_lengths(recipe: Recipe) -> tuple[int, ...]:
    """From a third of the longest training length to 3.3 times it (experiment 3).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> lookup_lengths(RECIPES["full"])
    (10, 20, 30, 50, 75, 100)
    """
    longest = recipe.lookup_lengths[1]
    return tuple(sorted({max(8, round(longest * step)) for step in (0.33, 0.67, 1.0, 1.67, 2.5, 3.33)}))


def mqar_lengths(recipe: Recipe) -> tuple[int, ...]:
    """The shipped pair counts up to 8 times the most the mqar models were trained on.

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> mqar_lengths(RECIPES["mqar"]), mqar_lengths(RECIPES["quick"])
    ((8, 16, 32, 64, 128, 256), (8, 16, 32, 64))
    """
    return tuple(pairs for pairs in FAMILIES["mqar"].lengths if pairs <= 8 * recipe.mqar_pairs[1])


def _lookup(name: str) -> TrainingTask:
    return TrainingTask(name, name, {"key_length": 4, "answer_length": 4, "fmt": "paper"},
                        lambda recipe: recipe.lookup_lengths, lambda recipe: ((name, lookup_lengths(recipe)),),
                        PAPER, "training", starts_from="copy")


COPY = TrainingTask("copy", "random_copy", {"fmt": "paper"}, lambda recipe: recipe.copy_lengths,
                    lambda recipe: (("random_copy", copy_lengths(recipe)), ("dup_ngram_copy", DUPLICATED_NGRAMS)),
                    PAPER, "training",
                    checkpoints_scored_on=lambda recipe: (("random_copy", training_lengths(recipe)),),
                    references=(Reference("ngram_copier-5", "ngram_copier", "n=5"),))
LOOKUP_PREFIX = _lookup("lookup_prefix")
LOOKUP_SUFFIX = _lookup("lookup_suffix")
MQAR = TrainingTask("mqar", "mqar", {"fmt": "zoology", "queries": None}, lambda recipe: recipe.mqar_pairs,
                    lambda recipe: (("mqar", mqar_lengths(recipe)),), "mqar", "training_mqar",
                    symbols=ZOOLOGY_KEYS + ZOOLOGY_VALUES, end_mark=False)


TRAINING_TASKS = {task.name: task for task in (COPY, LOOKUP_PREFIX, LOOKUP_SUFFIX, MQAR)}


PAPER_TASKS = tuple(name for name, task in TRAINING_TASKS.items() if task.experiment == PAPER)  # a run recorded
# without tasks ran these


def experiments(tasks) -> tuple[str, ...]:
    """The experiments of a run of `tasks`, in the table's order (the first leads its report).

    >>> experiments(("mqar", *PAPER_TASKS)), experiments(("mqar",))
    (('paper', 'mqar'), ('mqar',))
    """
    return tuple(dict.fromkeys(task.experiment for task in TRAINING_TASKS.values() if task.name in tasks))


def section(tasks) -> str:
    """The leaderboard section of a run of `tasks`: its leading task's (the first in the table).

    >>> section(PAPER_TASKS), section(("mqar",)), section(("mqar", *PAPER_TASKS))
    ('training', 'training_mqar', 'training')
    """
    return next(task.section for task in TRAINING_TASKS.values() if task.name in tasks)
