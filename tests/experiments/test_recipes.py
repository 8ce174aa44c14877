"""What a training run trains, and with what (`copy_tasks.experiments.recipes`)."""

from __future__ import annotations

from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES
from copy_tasks.experiments.training_tasks import TRAINING_TASKS


def test_every_recipe_trains_declared_tasks_and_the_quick_one_every_task():
    assert len(ARCHITECTURES) == 6
    for recipe in RECIPES.values():
        assert set(recipe.phases) <= set(TRAINING_TASKS) and set(recipe.architectures) <= set(ARCHITECTURES)
        assert set(recipe.tasks()) <= set(recipe.phases)
    assert set(RECIPES["quick"].phases) == set(TRAINING_TASKS)
    assert RECIPES["full"].phases["copy"].steps == 600


def test_the_papers_recipes_give_the_lstm_the_transformers_parameters_in_two_wide_layers():
    """Issue 42: six stacked 256-wide LSTM layers never left the uniform loss; the authors' LSTM and
    common practice are one or two wider layers, at the same parameters."""
    from copy_tasks.experiments.architectures import build_model, parameters
    from copy_tasks.experiments.training_data import tokenizer_for

    full = RECIPES["full"]
    lstm = build_model("lstm", full, tokenizer_for("copy"), 0)
    transformer = build_model("transformer-rope", full, tokenizer_for("copy"), 0)
    assert (lstm.config.num_hidden_layers, lstm.config.hidden_size) == (2, 440)
    assert abs(parameters(lstm) / parameters(transformer) - 1) < 0.01


def test_the_mqar_grid_trains_attention_and_two_fixed_states_at_three_widths():
    grid = RECIPES["mqar"]
    assert grid.tasks() == ("mqar",) and grid.widths == (32, 64, 128)
    assert grid.architectures == ("transformer-rope", "mamba2", "lstm")
    assert (grid.transformer_layers, grid.mamba_layers, grid.lstm_layers) == (2, 2, 2)
