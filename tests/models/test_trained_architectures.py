"""The trained model types lm-eval loads (`copy_tasks.models.trained_architectures`): each as
trained, none silently as another."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from conftest import offline_env

from copy_tasks.experiments.recipes import ARCHITECTURES
from copy_tasks.harness.lm_eval_internals import HF_BACKEND_MODULE
from copy_tasks.harness.state_size import memory_of

LOAD_WITHOUT_OUR_CODE = """
import sys
from transformers import AutoModelForCausalLM
try:
    AutoModelForCausalLM.from_pretrained(sys.argv[1])
except (ValueError, KeyError) as error:
    print("refused:", error)
else:
    print("loaded")
"""

# A fresh interpreter that imports lm-eval's hf backend (argv[1]), then loads each checkpoint.
LOAD_AFTER_THE_HF_BACKEND = """
import importlib, sys
from transformers import AutoModelForCausalLM
importlib.import_module(sys.argv[1])
print(*(type(AutoModelForCausalLM.from_pretrained(folder)).__name__ for folder in sys.argv[2:]))
"""


def test_lm_eval_loads_each_saved_architecture_as_trained(trained):
    from lm_eval.models.huggingface import HFLM

    out, tokens, logits, summaries = trained
    for architecture in ARCHITECTURES:
        lm = HFLM(pretrained=str(out / "copy" / architecture / "seed-0" / "final"), device="cpu", batch_size=1)
        with torch.no_grad():
            assert torch.allclose(lm.model(tokens).logits, logits[architecture], atol=1e-5), architecture
        # what a run records of the loaded model is what the training counted (None: nothing fixed)
        kept = memory_of(lm)
        assert (kept.state_bits or None, kept.bits_per_token) == (summaries[architecture]["state_bits"],
                                                                 summaries[architecture]["state_bits_per_token"])
    assert summaries["lstm"]["state_bits"] and summaries["mamba2"]["state_bits"]
    assert summaries["transformer-rope"]["state_bits_per_token"] and not summaries["lstm"]["state_bits_per_token"]


@pytest.mark.parametrize("architecture, model_type", [("transformer-hard-alibi", "copy_tasks_hard_alibi"),
                                                      ("lstm", "copy_tasks_lstm")])
def test_a_load_without_the_registration_fails_instead_of_scoring_another_model(trained, architecture, model_type):
    folder = trained[0] / "copy" / architecture / "seed-0" / "final"
    env = offline_env(COPY_TASKS_AUTOREGISTER="0")
    loaded = subprocess.run([sys.executable, "-c", LOAD_WITHOUT_OUR_CODE, str(folder)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert loaded.stdout.startswith("refused:") and model_type in loaded.stdout, loaded.stdout + loaded.stderr[-2000:]


@pytest.mark.slow  # a fresh interpreter
def test_the_start_up_hook_registers_the_trained_types_in_a_fresh_interpreter_as_lm_evals_hf_loads(trained):
    """What `copy-tasks train`'s lm-eval runs (each a fresh `python -m copy_tasks run`) rely on;
    the end-to-end test of `train` runs them in forks of a process that registered the types itself."""
    folders = [str(trained[0] / "copy" / architecture / "seed-0" / "final")
               for architecture in ("transformer-hard-alibi", "lstm")]
    loaded = subprocess.run([sys.executable, "-c", LOAD_AFTER_THE_HF_BACKEND, HF_BACKEND_MODULE, *folders],
                            env=offline_env(), capture_output=True, text=True, timeout=300)
    assert loaded.stdout.split() == ["HardAlibiForCausalLM", "LstmForCausalLM"], loaded.stderr[-2000:]
