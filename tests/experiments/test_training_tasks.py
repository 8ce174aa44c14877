"""The tasks `copy-tasks train` trains on (`copy_tasks.experiments.training_tasks`): each declared
once, the lengths each is trained and scored at derived from a recipe by hand, and a task that is
only declared planned, drawn, tokenized and named as the others (issue 43 finding 8: no branch on
a task's name)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from copy_tasks.experiments.recipes import RECIPES, Phases
from copy_tasks.experiments.train_command import record_name, section_name
from copy_tasks.experiments.train_evaluation import Evaluation, evaluations, write_tasks
from copy_tasks.experiments.training_data import tokenizer_for, training_example
from copy_tasks.experiments.training_tasks import (
    PAPER,
    PAPER_TASKS,
    TRAINING_TASKS,
    TrainingTask,
    copy_lengths,
    experiments,
    lookup_lengths,
    mqar_lengths,
    training_lengths,
)
from copy_tasks.probes.families import FAMILIES

QUICK = RECIPES["quick"]  # copies of 5 to 10 letters, lookups of 8 to 12, mqar 8 to 10 pairs


def test_every_task_is_declared_once_with_its_family_format_and_lengths():
    assert list(TRAINING_TASKS) == ["copy", "lookup_prefix", "lookup_suffix", "mqar"]
    assert all(name == task.name and task.family in FAMILIES for name, task in TRAINING_TASKS.items())
    assert {name: task.family for name, task in TRAINING_TASKS.items()} == {
        "copy": "random_copy", "lookup_prefix": "lookup_prefix", "lookup_suffix": "lookup_suffix", "mqar": "mqar"}
    assert TRAINING_TASKS["lookup_suffix"].options == {"key_length": 4, "answer_length": 4, "fmt": "paper"}
    assert TRAINING_TASKS["mqar"].options == {"fmt": "zoology", "queries": None}  # every key asked, as Zoology's
    assert len(TRAINING_TASKS["mqar"].symbols) == 1024
    for recipe in RECIPES.values():
        lengths = {name: task.trained_lengths(recipe) for name, task in TRAINING_TASKS.items()}
        assert lengths == {"copy": recipe.copy_lengths, "lookup_prefix": recipe.lookup_lengths,
                           "lookup_suffix": recipe.lookup_lengths, "mqar": recipe.mqar_pairs}
    assert {name: task.starts_from for name, task in TRAINING_TASKS.items()} == {
        "copy": None, "lookup_prefix": "copy", "lookup_suffix": "copy", "mqar": None}
    assert PAPER_TASKS == ("copy", "lookup_prefix", "lookup_suffix")
    assert [name for name, task in TRAINING_TASKS.items() if task.checkpoints_scored_on] == ["copy"]
    assert [reference.label for task in TRAINING_TASKS.values() for reference in task.references] == ["ngram_copier-5"]
    assert experiments(("mqar", "copy")) == (PAPER, "mqar")


@pytest.mark.parametrize(("recipe", "lengths"), [
    # longest 10 x (0.5, 1, 1.5, 2, 2.5, 3.75, 5, 7.5, 10); 37.5 rounds to the even 38
    (QUICK, (5, 10, 15, 20, 25, 38, 50, 75, 100)),
    (RECIPES["gpu"], (25, 50, 75, 100, 125, 188, 250, 375, 500)),  # longest 50; 187.5 rounds to 188
    (replace(QUICK, copy_lengths=(2, 3)), (2, 3, 4, 6, 8, 11, 15, 22, 30)),  # 1.5 -> 2 and at least 2
])
def test_copy_lengths_run_from_half_the_longest_training_length_to_ten_times_it(recipe, lengths):
    assert copy_lengths(recipe) == lengths


@pytest.mark.parametrize(("recipe", "lengths"), [
    # longest 12 x (0.33, 0.67, 1, 1.67, 2.5, 3.33) = 3.96, 8.04, 12, 20.04, 30, 39.96; at least 8
    (QUICK, (8, 12, 20, 30, 40)),
    (replace(QUICK, lookup_lengths=(8, 40)), (13, 27, 40, 67, 100, 133)),  # 13.2, 26.8, 40, 66.8, 100, 133.2
])
def test_lookup_lengths_run_from_a_third_of_the_longest_training_length_to_3_3_times_it(recipe, lengths):
    assert lookup_lengths(recipe) == lengths


def test_checkpoints_are_scored_at_half_the_longest_training_length_and_at_it():
    assert training_lengths(QUICK) == (5, 10)
    assert training_lengths(RECIPES["full"]) == (10, 20)
    assert training_lengths(RECIPES["gpu"]) == (25, 50)


def test_mqar_is_scored_at_the_shipped_pair_counts_up_to_eight_times_its_most():
    assert mqar_lengths(QUICK) == (8, 16, 32, 64)  # 8 x 10 = 80
    assert mqar_lengths(replace(QUICK, mqar_pairs=(8, 16))) == (8, 16, 32, 64, 128)
    assert mqar_lengths(RECIPES["mqar"]) == (8, 16, 32, 64, 128, 256)  # Zoology's figure reads to 256


def test_a_task_only_declared_is_planned_drawn_tokenized_and_named(tmp_path, monkeypatch):
    """A phone-book task of 10 entries scored at 10 and 20 and 25 (not shipped), with one symbol
    of its own: the evaluation plan, the stream, the tokenizer and the run's names follow its
    declaration, not a branch on its name."""
    toy = TrainingTask("book", "phonebook_copy", {}, lambda recipe: (10, 10),
                       lambda recipe: (("phonebook_copy", (10, 20, 25)),), "mqar", "training_book", symbols=("\u00e9",))
    monkeypatch.setitem(TRAINING_TASKS, "book", toy)
    recipe = replace(QUICK, phases={**QUICK.phases, "book": Phases(1, 1)})

    assert evaluations(recipe, tmp_path, ("lstm",), ("book",)) == [
        Evaluation("trained-book-lstm-s0", "hf", "",
                   ("phonebook_copy_tf_10", "phonebook_copy_tf_20", "phonebook_copy_tf_25"),
                   tmp_path / "book" / "lstm" / "seed-0" / "final")]
    write_tasks(recipe, tmp_path / "tasks")
    assert {"phonebook_copy_25.yaml", "phonebook_copy_tf_25.yaml"} <= {p.name for p in (tmp_path / "tasks").iterdir()}
    example = training_example(recipe, "book", seed=0, index=0)
    assert example.task == "book" and example.length == 10 and example.prompt.count("\n") >= 10  # a book of 10
    assert tokenizer_for("book").convert_ids_to_tokens(tokenizer_for("book")("\u00e9")["input_ids"]) == ["\u00e9"]
    assert (section_name(("book",)), record_name(("book",))) == ("training_book.md", "training_book.json")
