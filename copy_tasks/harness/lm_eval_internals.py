"""Every name of lm-eval's that copy-tasks relies on and lm-eval does not promise to keep.

lm-eval 0.4 has no plugin interface, so a few of its internals are wrapped or subclassed; they
are named here and nowhere else, and `tests/test_lm_eval_contract.py` asserts that each exists
with the signature we use, so an lm-eval upgrade that moves one fails in one named place:

- `lm_eval.tasks._index.TaskIndex.build(paths, ...)`: the task index; we add our folder. Its
  `Entry` (name, kind, yaml_path, cfg, tags) and `Kind`: the stored index is written as JSON.
- `lm_eval.config.evaluate_config.EvaluatorConfig.process_tasks(self, metadata)`: every
  command-line run (`lm_eval`, `python -m lm_eval`, `copy-tasks run`, `--config` files) builds
  its tasks here, after merging `--model_args` into `self.metadata` and before loading a model;
  we check our options first.
- `lm_eval.evaluator.evaluate(lm, task_dict, ...)`: we hand our tasks the model first.
- `lm_eval.models.huggingface.HFLM._loglikelihood_tokens(requests, disable_tqdm, override_bs)`
  and `HFLM._batch_scheduler`, with `lm_eval.models.utils.Collator`: `hf_fast` replaces the
  first and batches as `hf` does.
- `lm_eval.api.model.CachingLM.lm` (`--use_cache` wraps the model) and vLLM's `_config`.
- `lm_eval.loggers.evaluation_tracker.GeneralConfigTracker.log_experiment_args(self,
  model_source, model_args, ...)`, which names the run (`model_name`, `model_name_sanitized`:
  the results folder) from `pretrained=` or a random name; we name runs of our analytic models.
- the local `lm` of `lm_eval.evaluator.evaluate`, read from the call stack when our tasks
  build their requests in a run the start-up hook did not patch (`model_of_running_evaluate`).

This module is imported at interpreter start (by the start-up hook): it imports nothing but `sys`.
"""

import sys  # no `from __future__ import annotations`: importing __future__ costs start-up time

INDEX_MODULE = "lm_eval.tasks._index"
CONFIG_MODULE = "lm_eval.config.evaluate_config"
EVALUATOR_MODULE = "lm_eval.evaluator"
TRACKER_MODULE = "lm_eval.loggers.evaluation_tracker"
PATCHED_MODULES = (INDEX_MODULE, CONFIG_MODULE, EVALUATOR_MODULE, TRACKER_MODULE)


def model_of_running_evaluate():
    """The model object of the `lm_eval.evaluator.evaluate` call on the call stack, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "evaluate" and frame.f_globals.get("__name__") == EVALUATOR_MODULE:
            return frame.f_locals.get("lm")
        frame = frame.f_back
    return None


def task_index_class(index_module):
    return index_module.TaskIndex


def task_index_entry_classes(index_module):
    """The index's entry dataclass (fields name, kind, yaml_path, cfg, tags) and its Kind enum."""
    return index_module.Entry, index_module.Kind


def evaluator_config_class(config_module):
    return config_module.EvaluatorConfig


def config_tracker_class(tracker_module):
    return tracker_module.GeneralConfigTracker


def model_class(name: str):
    """The class lm-eval's model registry holds under `name`, or None."""
    from lm_eval.api.registry import get_model

    try:
        return get_model(name)
    except Exception:  # unknown names, or a registry that moved: then the run is not ours to name
        return None


def unwrap_model(lm):
    """The model inside lm-eval's request cache wrapper (`--use_cache`), or `lm` itself."""
    return getattr(lm, "lm", lm) if type(lm).__name__ == "CachingLM" else lm


def hf_config(lm):
    """The HF config of a live model: `hf` and its subclasses' `config`, vLLM's `_config`."""
    return getattr(lm, "config", None) or getattr(lm, "_config", None)


_SCORED_TOKENS_HFLM = None


def scored_tokens_hflm():
    """lm-eval's `HFLM` whose token-level loglikelihood (its `_loglikelihood_tokens`) is the
    subclass's `score_token_requests(requests, disable_tqdm, override_bs)`."""
    global _SCORED_TOKENS_HFLM
    if _SCORED_TOKENS_HFLM is None:
        from lm_eval.models.huggingface import HFLM

        class ScoredTokensHFLM(HFLM):
            def _loglikelihood_tokens(self, requests, disable_tqdm: bool = False, override_bs=None):
                return self.score_token_requests(requests, disable_tqdm, override_bs)

        _SCORED_TOKENS_HFLM = ScoredTokensHFLM
    return _SCORED_TOKENS_HFLM


def batched(lm, requests, sort_key, override_bs=None):
    """(the reordering, its batches) of token-level requests, as `hf` batches them: by
    `--batch_size`, or by lm-eval's automatic batch sizes for `auto`. The results of the
    batches, in order, go back through `reordering.get_original(results)`."""
    from lm_eval.models.utils import Collator

    reordering = Collator(requests, sort_fn=sort_key)
    automatic = lm.batch_size == "auto" and not override_bs
    size = override_bs or (0 if automatic else lm.batch_size)
    return reordering, reordering.get_batched(n=size, batch_fn=lm._batch_scheduler if automatic else None)
