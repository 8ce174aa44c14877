"""One in-process lm-eval run of a tiny GPT-NeoX on phone books longer and shorter than its
context, with the model recording what it was sent, shared by the overflow and results tests."""

from __future__ import annotations

import functools
import shutil

import lm_eval
import pytest
from lm_eval.models.huggingface import HFLM

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)
from copy_tasks.experiments.tiny_models import stop_at_once

PHONE_BOOKS = ["phonebook_copy_10", "phonebook_copy_20", "phonebook_copy_30"]


SCORED = ["phonebook_copy_tf_10", "phonebook_copy_tf_20", "phonebook_copy_tf_30"]


CONTEXT = 300  # tokens: 10-entry books fit, 30-entry ones do not, 20 entries are at the edge


@functools.cache
def plain_task_manager():
    """The task manager `simple_evaluate` builds for a run given neither `model_args` nor
    `metadata` (`TaskManager(metadata={})`; its tasks are built anew from their YAML at each
    load), made once: each one reads lm-eval's whole task index, about 1 s."""
    from lm_eval.tasks import TaskManager

    return TaskManager(metadata={})


def evaluate(model, tasks, **kwargs) -> dict:
    if not {"model_args", "metadata", "task_manager"} & set(kwargs):
        kwargs["task_manager"] = plain_task_manager()
    return lm_eval.simple_evaluate(model=model, tasks=tasks, limit=4, log_samples=True, **kwargs)


class RecordingHFLM(HFLM):
    """lm-eval's `hf`, recording the token ids it passes to the model."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[list[int]] = []

    def _model_generate(self, context, *args, **kwargs):
        self.sent += [row[mask.bool()].tolist() for row, mask in zip(context, kwargs["attention_mask"])]
        return super()._model_generate(context, *args, **kwargs)

    def _model_call(self, inps, *args, **kwargs):
        self.sent += inps.tolist()
        return super()._model_call(inps, *args, **kwargs)


@pytest.fixture(scope="session")
def stopping_neox(tiny_models, tmp_path_factory):
    """The tiny GPT-NeoX, its generations ending at their first token (`stop_at_once`): what is
    checked here is what the backend is sent, not what the model answers, and a random model
    would spend every doc's whole budget of decoding steps."""
    return stop_at_once(shutil.copytree(tiny_models["gpt_neox"], tmp_path_factory.mktemp("stopping") / "model"))


@pytest.fixture(scope="session")
def hf_run(stopping_neox):
    """The run, made once for the session: its tests only read it (the overflow and results
    tests of test_backend_limits.py and test_complete_results.py)."""
    lm = RecordingHFLM(pretrained=str(stopping_neox), device="cpu", batch_size=1, max_length=CONTEXT)
    return lm, evaluate(lm, ["phonebook_copy", *SCORED])
