"""The one adapter between copy-tasks and lm-eval: every name of lm-eval's that copy-tasks relies
on and lm-eval does not promise to keep passes through here, and nowhere else.

lm-eval 0.4 has no plugin interface, so copy-tasks wraps a few of its functions and reads a few of
its internals. `tests/harness/test_lm_eval_internals.py` calls each of them as we use it (no
source matching), and `tests/test_layers.py` checks that no other module imports an lm-eval
private name or touches an underscore attribute of an lm-eval object, so an lm-eval upgrade that
moves one fails in one named place.

The patches (`PATCH_TARGETS`; `copy_tasks.harness.registration` makes them, the start-up hook
`copy_tasks.harness.startup` applies them when lm-eval imports the module):
- `lm_eval.tasks._index.TaskIndex.build(paths, ...)`: the task index; our folder is indexed
  right after lm-eval's built-in tasks (a user's `--include_path` still comes last and wins), and
  lm-eval's own folder's index is kept in our cache between runs. Its `Entry` (name, kind,
  yaml_path, cfg, tags) and `Kind`: the stored index is written as JSON.
- `lm_eval.config.evaluate_config.EvaluatorConfig.process_tasks(self, metadata)`: every
  command-line run (`lm_eval`, `python -m lm_eval`, `copy-tasks run`, `--config` files) builds
  its tasks here, after merging `--model_args` into `self.metadata` and before loading a model;
  we check our options first (its fields `metadata`, `tasks`, `model`, `batch_size`).
- `lm_eval.evaluator.evaluate(lm, task_dict, ...)`: we hand our tasks the model first, and
  complete what it returns (`copy_tasks.harness.complete_results`; the shape of that dict is
  read through `results_table`, `logged_samples`, `group_subtasks` and `metric_key` here).
- `lm_eval.evaluator.simple_evaluate(model, model_args, ..., use_cache, ..., metadata, task_manager)`:
  we refuse our options given beside a task manager that would drop them, and give its response
  cache (`use_cache`) a path per model and arguments: its `CachingLM` keys answers by request
  alone, in the file `use_cache + "_rank<N>.db"`.
- `lm_eval.evaluator.set_torch_seed(seed)` imports torch to seed it, and
  `lm_eval.evaluator.add_env_info(results)` imports it again for torch's `collect_env` report
  (a dozen programs run): seconds of start-up in a run whose model never uses torch (the
  reference models). Where torch is not imported, the seed is set right after torch is
  (`torch_seeded_on_import`), and the results get lm-eval's other environment fields, the
  report replaced by a line saying why (`env_info_without_torch`).
- `lm_eval.loggers.evaluation_tracker.GeneralConfigTracker.log_experiment_args(self,
  model_source, model_args, ...)`, which names the run (`model_name`, `model_name_sanitized`:
  the results folder) from `pretrained=` or a random name; we name runs of our analytic models.

The internals read, not patched:
- `Task.build_all_requests(..., tokenizer_name)`: lm-eval keys its request cache
  (`--cache_requests`) on the task's name and settings and this argument, its one free-text
  part; we add our docs' fingerprint to it (`request_cache_keyed_on`).
- `lm_eval.models.huggingface.HFLM._loglikelihood_tokens(requests, disable_tqdm, override_bs)`
  and `HFLM._batch_scheduler`, with `lm_eval.models.utils.Collator`: `hf_fast` replaces the
  first and batches as `hf` does.
- `lm_eval.api.model.CachingLM.lm` (`--use_cache` wraps the model) and vLLM's `_config`.
- `Task.download` logs, for every task whose dataset is a function (ours are), a hint about
  RULER's `--metadata` (`max_seq_lengths`) on the logger `lm_eval.api.task`; it is wrong for
  our tasks and is dropped for them alone (`without_custom_dataset_hint`).
- `lm_eval.evaluator.get_git_commit_hash` runs `git describe` with git's stderr on the console
  (`fatal: not a git repository` outside a checkout); `git_hash_quietly` asks git quietly first.
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


class PatchTarget:
    """A function of an lm-eval module that copy-tasks wraps: `attribute` of `owner(module)`
    (a static method where `static`)."""

    def __init__(self, module: str, owner, attribute: str, static: bool = False):
        self.module, self.owner, self.attribute, self.static = module, owner, attribute, static


PATCH_TARGETS = {
    "task_index": PatchTarget(INDEX_MODULE, lambda module: module.TaskIndex, "build", static=True),
    "option_checks": PatchTarget(CONFIG_MODULE, lambda module: module.EvaluatorConfig, "process_tasks"),
    "evaluate": PatchTarget(EVALUATOR_MODULE, lambda module: module, "evaluate"),
    "simple_evaluate": PatchTarget(EVALUATOR_MODULE, lambda module: module, "simple_evaluate"),
    "run_naming": PatchTarget(TRACKER_MODULE, lambda module: module.GeneralConfigTracker, "log_experiment_args"),
    "git_hash": PatchTarget(EVALUATOR_MODULE, lambda module: module, "get_git_commit_hash"),
    "torch_seed": PatchTarget(EVALUATOR_MODULE, lambda module: module, "set_torch_seed"),
    "env_info": PatchTarget(EVALUATOR_MODULE, lambda module: module, "add_env_info"),
}
TORCH = "torch"
TORCH_AVAILABLE = ("lm_eval.utils", "is_torch_available")  # what add_env_info asks before torch's report
TASK_LOGGER = "lm_eval.api.task"
CUSTOM_DATASET_HINT = "Custom kwargs can be passed to `--metadata`"


class _HintFilter:
    """A logging filter dropping lm-eval's custom-dataset hint for one task."""

    def __init__(self, task: str):
        self.prefix = f"{task}: {CUSTOM_DATASET_HINT}"

    def filter(self, record) -> bool:
        return not str(record.getMessage()).startswith(self.prefix)


def without_custom_dataset_hint(task: str, download):
    """`download()` (a task's `Task.download`) with lm-eval's RULER hint for `task` dropped; its
    other messages, and the hint for every other task, still go out."""
    import logging

    logger, hint = logging.getLogger(TASK_LOGGER), _HintFilter(task)
    logger.addFilter(hint)
    try:
        return download()
    finally:
        logger.removeFilter(hint)


def git_hash_quietly(get_git_commit_hash):
    """lm-eval's `get_git_commit_hash`, run only where git finds a repository (asked with its
    stderr silenced); elsewhere None, what lm-eval records there after git's `fatal:` line."""
    import subprocess

    def quiet():
        try:
            inside = subprocess.run(["git", "rev-parse", "--git-dir"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL).returncode == 0
        except OSError:  # no git: lm-eval reads the folder itself, without a message
            inside = True
        return get_git_commit_hash() if inside else None

    return quiet



class SeedOnImport:
    """Finds nothing itself: when `module` is found, runs `seed()` right after it loads, once."""

    def __init__(self, module: str, seed):
        self.module, self.seed = module, seed

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.module:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
                self.seed()

        spec.loader.exec_module = exec_module
        return spec


def torch_seeded_on_import(set_torch_seed, module: str = TORCH):
    """lm-eval's `set_torch_seed(seed)`, which imports torch (`module`) to seed it: where torch is
    not imported yet, the seed is set right after it is, before anything can draw from its
    generator (lm-eval records the seed in the results as before); the latest seed wins."""

    def seed(value):
        sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, SeedOnImport)]
        if module in sys.modules:
            return set_torch_seed(value)
        sys.meta_path.insert(0, SeedOnImport(module, lambda: set_torch_seed(value)))

    return seed


def env_info_without_torch(add_env_info):
    """lm-eval's `add_env_info(results)`; in a run that has not imported torch, without torch's
    `collect_env` report (`pretty_env_info`, about a second of programs run, and torch imported
    for it): the other fields (`lm_eval_version`, `transformers_version`, `upper_git_hash`) as
    lm-eval writes them, `pretty_env_info` a line saying why the report is left out."""

    def add(storage):
        if TORCH in sys.modules:
            return add_env_info(storage)
        import importlib
        import platform

        owner = importlib.import_module(TORCH_AVAILABLE[0])
        available = getattr(owner, TORCH_AVAILABLE[1])
        setattr(owner, TORCH_AVAILABLE[1], lambda: False)
        try:
            add_env_info(storage)
        finally:
            setattr(owner, TORCH_AVAILABLE[1], available)
        storage["pretty_env_info"] = (f"N/A (this run never imported torch: copy-tasks leaves out torch's collect_env "
                                      f"report); Python {platform.python_version()}, {platform.platform()}")

    return add


def model_of_running_evaluate():
    """The model object of the `lm_eval.evaluator.evaluate` call on the call stack, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "evaluate" and frame.f_globals.get("__name__") == EVALUATOR_MODULE:
            return frame.f_locals.get("lm")
        frame = frame.f_back
    return None


def task_index_entry_classes(index_module):
    """The index's entry dataclass (fields name, kind, yaml_path, cfg, tags) and its Kind enum."""
    return index_module.Entry, index_module.Kind


def evaluator_config_fields(config):
    """(metadata, tasks, model, batch_size, model_args) of lm-eval's `EvaluatorConfig` for a run
    (its `metadata` holds the `--model_args` too, merged in)."""
    return (config.metadata, config.tasks, getattr(config, "model", None), getattr(config, "batch_size", None),
            getattr(config, "model_args", None) or {})


def sanitized_model_name(tracker_module, name: str) -> str:
    """The results folder's name lm-eval makes of a model name (`sanitize_model_name`, as the
    tracker module imports it).

    >>> import types, re
    >>> tracker = types.SimpleNamespace(sanitize_model_name=lambda name: re.sub("/", "__", name))
    >>> sanitized_model_name(tracker, "org/model")
    'org__model'
    """
    return tracker_module.sanitize_model_name(name)


def request_cache_keyed_on(build_arguments: dict, tag: str) -> dict:
    """`build_all_requests`' keyword arguments with `tag` added to the request cache's key
    (lm-eval keys the cache on `tokenizer_name` among its settings).

    >>> request_cache_keyed_on({"tokenizer_name": "gpt2", "limit": 3}, "ab12")
    {'tokenizer_name': 'gpt2-copy_tasks-ab12', 'limit': 3}
    """
    return {**build_arguments, "tokenizer_name": f"{build_arguments.get('tokenizer_name') or ''}-copy_tasks-{tag}"}


def built_requests(task) -> list:
    """The requests (`Instance`s) a task built in `build_all_requests` (`Task.instances`)."""
    return task.instances or []


def metric_key(metric: str, stderr: bool = False) -> str:
    """The key of a metric in lm-eval's results under the `none` filter.

    >>> metric_key("exact_match"), metric_key("exact_match", stderr=True)
    ('exact_match,none', 'exact_match_stderr,none')
    """
    return f"{metric}{'_stderr' if stderr else ''},none"


def metric_of_key(key: str) -> str | None:
    """The metric a results key holds (stderr or not), or None for a key that is no metric's.

    >>> metric_of_key("exact_match_stderr,none"), metric_of_key("alias")
    ('exact_match', None)
    """
    return key.split(",", 1)[0].removesuffix("_stderr") if "," in key else None


def results_table(results: dict, table: str = "results") -> dict:
    """Task or group name -> its metrics, in what `evaluate` returns (`results` or `groups`)."""
    return results.get(table) or {}


def logged_samples(results: dict, task: str) -> list[dict]:
    """The samples `evaluate` logged for a task (none unless samples were logged)."""
    return (results.get("samples") or {}).get(task, [])


def group_subtasks(results: dict) -> dict[str, list[str]]:
    """Group name -> the names of its tasks and groups, in what `evaluate` returns."""
    return results.get("group_subtasks") or {}


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
