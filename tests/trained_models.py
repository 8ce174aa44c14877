"""The architectures of `copy-tasks train`, each trained for a few steps and saved, for the tests
that load them."""

from __future__ import annotations

import pytest
import torch

from copy_tasks.experiments.recipes import ARCHITECTURES, RECIPES
from copy_tasks.experiments.training import train
from copy_tasks.experiments.training_data import char_tokenizer

QUICK = RECIPES["quick"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Each architecture after a quick training on the copy task, the logits it computes, and
    its training summary."""
    out = tmp_path_factory.mktemp("trained")
    tokens = torch.tensor([char_tokenizer()("$abcde|abc")["input_ids"]])
    logits, summaries = {}, {}
    for architecture in ARCHITECTURES:
        summaries[architecture] = train(architecture, "copy", 0, QUICK, out)
        from transformers import AutoModelForCausalLM

        with torch.no_grad():
            model = AutoModelForCausalLM.from_pretrained(out / "copy" / architecture / "seed-0" / "final").eval()
            logits[architecture] = model(tokens).logits
    return out, tokens, logits, summaries
