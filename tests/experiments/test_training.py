"""The training loop of `copy-tasks train` (`copy_tasks.experiments.training`): deterministic from
its seed, two phases, the copy models' checkpoints."""

from __future__ import annotations

import json

import pytest

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
