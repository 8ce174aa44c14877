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


@pytest.mark.parametrize("architecture", ["transformer-rope", "transformer-conv", "mamba2", "lstm"])
def test_the_loss_in_groups_of_like_length_is_the_padded_batchs(architecture):
    """`answer_loss` cuts a batch into groups of rows of like length: the loss and every gradient
    are those of the whole padded batch, which is transformers' own causal-LM loss."""
    from copy_tasks.experiments.architectures import build_model
    from copy_tasks.experiments.training import answer_loss
    from copy_tasks.experiments.training_data import single_batch, tokenizer_for, training_example

    recipe = RECIPES["quick"]
    tokenizer = tokenizer_for("mqar")
    model = build_model(architecture, recipe, tokenizer, 0)
    examples = [training_example(recipe, "mqar", 0, index, lengths=(2, 10)) for index in range(6)]
    ids, mask, labels = single_batch(tokenizer, examples)
    assert len(set(mask.sum(dim=1).tolist())) > 2  # rows of several lengths

    def loss_and_gradients(loss):
        model.zero_grad()
        loss.backward()
        return loss.item(), [parameter.grad.clone() for parameter in model.parameters()]

    own, own_gradients = loss_and_gradients(model(input_ids=ids, attention_mask=mask, labels=labels).loss)
    for groups, own_forward in ((1, False), (3, False), (6, False), (1, True), (3, True)):
        loss, grads = loss_and_gradients(answer_loss(model, ids, mask, labels, groups, own_forward))
        assert loss == pytest.approx(own, rel=1e-5)
        for got, expected in zip(grads, own_gradients):
            assert torch.allclose(got, expected, rtol=1e-4, atol=1e-6 * expected.abs().max().item() + 1e-9)
