"""The lm-eval internals copy-tasks relies on (`copy_tasks.harness.lm_eval_internals`) exist
with the signatures we use: an lm-eval upgrade that moves one fails here, by name."""

from __future__ import annotations

import dataclasses
import importlib
import inspect

import pytest

from copy_tasks.harness import lm_eval_internals as internals


def parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_task_index_build_takes_the_folders_first():
    task_index = internals.task_index_class(importlib.import_module(internals.INDEX_MODULE))
    assert isinstance(inspect.getattr_static(task_index, "build"), staticmethod)
    assert parameters(task_index.build)[0] == "paths"
    entry, kind = internals.task_index_entry_classes(importlib.import_module(internals.INDEX_MODULE))
    assert [field.name for field in dataclasses.fields(entry)] == ["name", "kind", "yaml_path", "cfg", "tags"]
    assert {"TASK", "GROUP", "TAG"} <= set(kind.__members__)


def test_evaluator_config_builds_tasks_from_metadata_and_tasks():
    config_class = internals.evaluator_config_class(importlib.import_module(internals.CONFIG_MODULE))
    assert parameters(config_class.process_tasks)[:2] == ["self", "metadata"]
    fields = {field.name for field in config_class.__dataclass_fields__.values()}
    assert {"metadata", "tasks", "model_args"} <= fields
    from lm_eval._cli.run import Run

    assert "process_tasks" in inspect.getsource(Run._execute)  # every CLI run goes through it


def test_evaluate_takes_the_model_and_the_task_dict():
    evaluate = importlib.import_module(internals.EVALUATOR_MODULE).evaluate
    assert parameters(evaluate)[:2] == ["lm", "task_dict"]
    from lm_eval.evaluator import simple_evaluate

    assert "evaluate(" in inspect.getsource(simple_evaluate)


def test_hflm_token_level_loglikelihood_and_batching():
    from lm_eval.models.huggingface import HFLM
    from lm_eval.models.utils import Collator

    assert parameters(HFLM._loglikelihood_tokens) == ["self", "requests", "disable_tqdm", "override_bs"]
    assert callable(HFLM._batch_scheduler)
    assert parameters(Collator.__init__)[1] == "arr" and "sort_fn" in parameters(Collator.__init__)
    assert {"n", "batch_fn"} <= set(parameters(Collator.get_batched))
    assert callable(Collator.get_original)
    assert issubclass(internals.scored_tokens_hflm(), HFLM)


def test_the_cache_wrapper_keeps_the_model_as_lm():
    from lm_eval.api.model import CachingLM

    assert "self.lm = lm" in inspect.getsource(CachingLM.__init__).replace("self.lm: LM = lm", "self.lm = lm")


@pytest.mark.parametrize("method", ["construct_requests", "build_all_requests", "process_results", "download"])
def test_the_task_methods_our_task_class_extends(method):
    from lm_eval.api.task import ConfigurableTask

    assert callable(getattr(ConfigurableTask, method))
    if method == "construct_requests":
        assert parameters(ConfigurableTask.construct_requests)[:3] == ["self", "doc", "ctx"]
    if method == "process_results":
        assert parameters(ConfigurableTask.process_results) == ["self", "doc", "results"]
