"""What a training run trains, and with what (`copy_tasks.experiments.recipes`)."""

from __future__ import annotations

from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES
from copy_tasks.experiments.training_data import TASKS


def test_every_recipe_has_the_phases_of_every_task_and_the_lengths_of_each():
    assert len(ARCHITECTURES) == 6
    for recipe in RECIPES.values():
        assert set(recipe.phases) == set(TASKS)
        assert recipe.lengths("copy") == recipe.copy_lengths and recipe.lengths("mqar") == recipe.mqar_pairs
        assert recipe.lengths("lookup_prefix") == recipe.lookup_lengths
    assert RECIPES["full"].phases["copy"].steps == 450
