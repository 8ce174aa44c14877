"""What a training run trains, and with what (`copy_tasks.experiments.recipes`)."""

from __future__ import annotations

from copy_tasks.experiments.recipes import ARCHITECTURES, MAMBA2_STATES, PAPER_ARCHITECTURES, RECIPES
from copy_tasks.experiments.training_tasks import TRAINING_TASKS


def test_every_recipe_trains_declared_tasks_and_the_quick_one_every_task():
    assert len(PAPER_ARCHITECTURES) == 6 and set(PAPER_ARCHITECTURES) < set(ARCHITECTURES)
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


def test_the_mqar_grid_trains_two_attentions_and_the_lstm_at_two_widths_and_mamba2_at_four_states():
    grid = RECIPES["mqar"]
    assert grid.tasks() == ("mqar",) and grid.widths == (32, 64)
    assert grid.architectures == ("transformer-rope", "transformer-conv", "mamba2-state8", "mamba2-state16",
                                  "mamba2-state32", "mamba2", "lstm")
    assert (grid.transformer_layers, grid.mamba_layers, grid.lstm_layers) == (2, 2, 2)
    widths = [grid.widths_of(name) for name in ("transformer-rope", "lstm", *MAMBA2_STATES)]
    assert widths == [(32, 64)] * 2 + [(64,)] * 4
    assert grid.learning_rate_of("transformer-rope") == 1e-3 and grid.learning_rate_of("mamba2") == 3e-3
    assert set(grid.tied_heads) == set(MAMBA2_STATES)


def test_the_gpu_recipe_trains_its_three_architectures_at_a_tiny_size_on_the_cpu(tmp_path):
    """Recipe gpu (Hard-ALiBi, Mamba-2 and the LSTM to about a million copy examples on one GPU)
    is not run on 2 CPU cores; its code path is, at a tiny size: each model takes its two phases
    and saves a checkpoint that loads."""
    from dataclasses import replace

    from transformers import AutoModelForCausalLM

    from copy_tasks.experiments.recipes import Phases
    from copy_tasks.experiments.training import train
    from copy_tasks.experiments.training_jobs import jobs

    gpu = RECIPES["gpu"]
    assert {job.architecture for job in jobs(gpu, gpu.architectures, gpu.tasks())} == {
        "transformer-hard-alibi", "mamba2", "lstm"}
    single, packed = gpu.phases["copy"].single_steps, gpu.phases["copy"].packed_steps
    per_row = gpu.context // (2 * 27.5 + 3)  # `$<s>|<s>.`, s of 5 to 50 letters: 58 tokens on average
    assert single * gpu.batch_size + packed * gpu.packed_rows * per_row > 1_000_000
    tiny = replace(gpu, phases={**gpu.phases, "copy": Phases(2, 1)}, batch_size=2, packed_rows=1, context=128,
                   hidden=32, transformer_layers=1, mamba_layers=1, lstm_hidden=32, attention_heads=4, masked_heads=2)
    for architecture in gpu.architectures:
        summary = train(architecture, "copy", 0, tiny, tmp_path)
        assert summary["examples"] > 4 and AutoModelForCausalLM.from_pretrained(
            tmp_path / "copy" / architecture / "seed-0" / "final").config.hidden_size == 32
