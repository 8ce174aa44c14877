"""What a training run trains, and with what (`copy_tasks.experiments.recipes`)."""

from __future__ import annotations

from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES
from copy_tasks.experiments.training_tasks import TRAINING_TASKS


def test_every_recipe_has_the_phases_of_every_task():
    assert len(ARCHITECTURES) == 6
    for recipe in RECIPES.values():
        assert set(recipe.phases) == set(TRAINING_TASKS)
    assert RECIPES["full"].phases["copy"].steps == 450
