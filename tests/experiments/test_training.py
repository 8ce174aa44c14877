"""The training loop of `copy-tasks train` (`copy_tasks.experiments.training`): deterministic from
its seed, two phases, the copy models' checkpoints."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch

from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.training import train

QUICK = RECIPES["quick"]


@pytest.mark.parametrize("architecture", ["transformer-hard-alibi", "lstm"])
def test_training_reproduces_from_its_seed(architecture, tmp_path):
    first = train(architecture, "copy", 0, QUICK, tmp_path / "one")
    second = train(architecture, "copy", 0, QUICK, tmp_path / "two")
    assert first["final_loss"] == second["final_loss"] and first["examples"] == second["examples"]
    for name in ("model.safetensors", "config.json"):
        assert (tmp_path / "one" / "copy" / architecture / "seed-0" / "final" / name).read_bytes() == \
            (tmp_path / "two" / "copy" / architecture / "seed-0" / "final" / name).read_bytes()
    log = [json.loads(line) for line in (tmp_path / "one" / "copy" / architecture / "seed-0" / "log.jsonl")
           .read_text().splitlines()]
    assert [entry["phase"] for entry in log] == ["single", "single", "packed"]  # 4 single steps, then 2 packed
    assert log[1]["examples"] == 4 * QUICK.batch_size and log[-1]["examples"] == first["examples"]
    assert set(first["checkpoints"]) == {3, 6}


def test_a_curriculum_draws_its_first_steps_from_the_easy_lengths(tmp_path):
    """The quick recipe's mqar: 2 steps of 2 to 4 pairs, then its training pairs (8 to 10)."""
    summary = train("lstm", "mqar", 0, QUICK, tmp_path)
    log = [json.loads(line) for line in (tmp_path / "mqar" / "lstm" / "seed-0" / "log.jsonl").read_text().splitlines()]
    assert [entry["lengths"] for entry in log] == [[2, 4], [8, 10]]  # logged every 2 steps: steps 1-2, 3-4
    phases = QUICK.phases["mqar"]
    assert phases.lengths_at(1, (8, 10)) == (2, 4) and phases.lengths_at(2, (8, 10)) == (8, 10)
    assert [step for step, _ in summary["loss_curve"]] == [2, 4]


def test_a_lookup_model_starts_from_its_seeds_copy_model(tmp_path):
    """At learning rate 0 a lookup model's final weights are its copy model's, tensor for tensor;
    trained from scratch they would be a fresh initialisation."""
    from safetensors.torch import load_file

    still = replace(QUICK, learning_rate=0.0)
    train("lstm", "copy", 0, QUICK, tmp_path)
    summary = train("lstm", "lookup_prefix", 0, still, tmp_path)
    copied = load_file(tmp_path / "copy" / "lstm" / "seed-0" / "final" / "model.safetensors")
    started = load_file(tmp_path / "lookup_prefix" / "lstm" / "seed-0" / "final" / "model.safetensors")
    assert copied.keys() == started.keys() and all(torch.equal(copied[name], started[name]) for name in copied)
    assert summary["started_from"] == "copy/lstm/seed-0/final"


def test_a_lookup_model_whose_copy_model_is_missing_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="the model this one starts from is not trained"):
        train("lstm", "lookup_suffix", 0, QUICK, tmp_path)


def test_a_grid_recipes_model_is_built_at_its_width_in_a_folder_of_its_own(tmp_path):
    grid = replace(QUICK, widths=(16, 32))
    summary = train("lstm", "mqar", 1, grid, tmp_path, width=16)
    folder = tmp_path / "mqar" / "lstm-w16" / "seed-1"
    assert json.loads((folder / "final" / "config.json").read_text())["hidden_size"] == 16
    assert (summary["width"], summary["hidden_size"], summary["state_bits"]) == (16, 16, 2 * 2 * 16 * 32)
