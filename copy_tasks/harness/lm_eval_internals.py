"""The one adapter between copy-tasks and lm-eval: every name of lm-eval's that copy-tasks relies
on and lm-eval does not promise to keep passes through here, and nowhere else.

lm-eval 0.4 has no plugin interface, so copy-tasks wraps a few of its functions and reads a few of
its internals. `tests/harness/test_lm_eval_internals.py` calls each of them as we use it (no
source matching), and `tests/test_layers.py` checks that no other module (of the package, its
tests or benchmarks) imports an lm-eval private name, touches an underscore attribute, names an
lm-eval module in a string, spells a results key, sets an attribute of an lm-eval object, reads a
wrapped call's arguments by name or indexes a request tuple, so an lm-eval upgrade that moves one
fails in one named place.

The patches (`PATCH_TARGETS`; `copy_tasks.harness.registration` makes them with `patch`, the
start-up hook `copy_tasks.harness.startup` applies them when lm-eval imports the module):
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

Patched when one of our generation tasks is bound to lm-eval's `hf` backend (or a subclass),
not at import (`copy_tasks.harness.answer_stops`):
- `lm_eval.models.huggingface.stop_sequences_criteria(tokenizer, stop_sequences,
  initial_decoder_input_length, batch_size)`, the transformers `StoppingCriteriaList` that
  `HFLM._model_generate` passes to `generate` for a batch; we add a criterion that ends each of
  our rows on its own once it holds its answer.

The internals read, not patched:
- `Task.build_all_requests(..., tokenizer_name)`: lm-eval keys its request cache
  (`--cache_requests`) on the task's name and settings and this argument, its one free-text
  part; we add our docs' fingerprint to it (`request_cache_keyed_on`).
- `lm_eval.models.huggingface.HFLM._loglikelihood_tokens(requests, disable_tqdm, override_bs)`
  and `HFLM._batch_scheduler`, with `lm_eval.models.utils.Collator`: `hf_fast` replaces the
  first and batches as `hf` does; its requests are tuples (cache key, context tokens,
  continuation tokens), read as `TokenRequest`s, and their answers go to lm-eval's response
  cache as `hf` puts them there (`cache_answer`).
- `lm_eval.api.model.CachingLM.lm` (`--use_cache` wraps the model) and vLLM's `_config`.
- `Task.download` logs, for every task whose dataset is a function (ours are), a hint about
  RULER's `--metadata` (`max_seq_lengths`) on its module's logger (`task_logger`); it is wrong
  for our tasks and is dropped for them alone (`without_custom_dataset_hint`).
- `ConfigurableTask`: on 0.5 the base `Task`, which leaves `construct_requests` to one subclass
  per output type (`Task._registry`; `task_class_for`), returning a list (`only_request`).
- `lm_eval.evaluator.get_git_commit_hash` runs `git describe` with git's stderr on the console
  (`fatal: not a git repository` outside a checkout); `git_hash_quietly` asks git quietly first.
- the local `lm` of `lm_eval.evaluator.evaluate`, read from the call stack when our tasks
  build their requests in a run the start-up hook did not patch (`model_of_running_evaluate`).
- the keys of lm-eval's results, `<metric>,<filter>` and `<metric>_stderr,<filter>`
  (`results_key`, `parse_results_key`).
- lm-eval's command line, `lm_eval.__main__.cli_evaluate` reading `sys.argv`, and the message
  of its `_cli` package's parser of JSON arguments (`--model_args`, `--metadata`, ...):
  `command_line`, `run_command_line`, `is_bad_json_argument`; 0.5's parser takes `--metadata`
  as JSON alone (`metadata_as_json`).
- `lm_eval.models.huggingface` (`HF_BACKEND_MODULE`), imported when the `hf` backend loads: the
  start-up hook registers our model types then.

The patches' arguments are read by their names here, and only here: `evaluate_model_and_tasks`,
`process_tasks_arguments`, `simple_evaluate_metadata_and_task_manager`, `with_response_cache_path`,
`experiment_arguments` and `build_all_requests_arguments`.

This module is imported at interpreter start (by the start-up hook): it imports nothing but `sys`.
"""

import sys  # no `from __future__ import annotations`: importing __future__ costs start-up time

INDEX_MODULE = "lm_eval.tasks._index"
CONFIG_MODULE = "lm_eval.config.evaluate_config"
EVALUATOR_MODULE = "lm_eval.evaluator"
TRACKER_MODULE = "lm_eval.loggers.evaluation_tracker"
HF_MODULE = "lm_eval.models.huggingface"  # patched when our tasks bind an `hf` model, not at import
PATCHED_MODULES = (INDEX_MODULE, CONFIG_MODULE, EVALUATOR_MODULE, TRACKER_MODULE)
HF_BACKEND_MODULE = "lm_eval.models.huggingface"
# The entry-point group an lm-eval with model plugins loads backends from (upstream PR 4013, after
# 0.5.0.dev1); pyproject.toml declares ours in it.
MODEL_PLUGIN_GROUP = "lm_eval.models"
# HFLM's trial of batch sizes, which `--batch_size auto` runs at the whole context (hf_fast sizes its own)
HF_BATCH_SIZE_TRIAL = "_detect_batch_size"


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
    "generation_stops": PatchTarget(HF_MODULE, lambda module: module, "stop_sequences_criteria"),
    "torch_seed": PatchTarget(EVALUATOR_MODULE, lambda module: module, "set_torch_seed"),
    "env_info": PatchTarget(EVALUATOR_MODULE, lambda module: module, "add_env_info"),
}
TORCH = "torch"
TORCH_AVAILABLE = ("lm_eval.utils", "is_torch_available")  # what add_env_info asks before torch's report
_PATCHED = "_copy_tasks_patched"


def patch(module, target: str, make_wrapper) -> None:
    """Replace lm-eval's function `PATCH_TARGETS[target]` of `module` by `make_wrapper(it)`,
    once: a function already wrapped is left as it is."""
    import functools

    where = PATCH_TARGETS[target]
    owner = where.owner(module)
    original = getattr(owner, where.attribute)
    if getattr(original, _PATCHED, False):
        return
    wrapper = functools.wraps(original)(make_wrapper(original))
    setattr(wrapper, _PATCHED, True)
    setattr(owner, where.attribute, staticmethod(wrapper) if where.static else wrapper)


def _bound(function, args: tuple, kwargs: dict):
    """The arguments of a call of lm-eval's `function` (not checked: lm-eval checks them)."""
    import inspect

    return inspect.signature(function).bind_partial(*args, **kwargs)


def evaluate_model_and_tasks(evaluate, args: tuple, kwargs: dict) -> tuple:
    """(model, task dict) of a call of `lm_eval.evaluator.evaluate` (its `lm`, `task_dict`)."""
    arguments = _bound(evaluate, args, kwargs).arguments
    return arguments.get("lm"), arguments.get("task_dict")


def process_tasks_arguments(process_tasks, args: tuple, kwargs: dict) -> tuple:
    """(the `EvaluatorConfig`, the metadata given or None) of a call of its `process_tasks`."""
    arguments = _bound(process_tasks, args, kwargs).arguments
    return arguments.get("self"), arguments.get("metadata")


def simple_evaluate_metadata_and_task_manager(simple_evaluate, args: tuple, kwargs: dict) -> tuple:
    """(the `metadata` given or {}, the `task_manager` given or None) of a `simple_evaluate` call."""
    arguments = _bound(simple_evaluate, args, kwargs).arguments
    return arguments.get("metadata") or {}, arguments.get("task_manager")


def with_response_cache_path(simple_evaluate, args: tuple, kwargs: dict, cache_path) -> tuple[tuple, dict]:
    """The (args, kwargs) of a `simple_evaluate` call with its response cache (`use_cache=PATH`),
    where it has one, at `cache_path(PATH, model, model_args)` instead."""
    bound = _bound(simple_evaluate, args, kwargs)
    if (path := bound.arguments.get("use_cache")) is not None:
        bound.arguments["use_cache"] = cache_path(path, bound.arguments.get("model"), bound.arguments.get("model_args"))
    return bound.args, bound.kwargs


def experiment_arguments(log_experiment_args, args: tuple, kwargs: dict) -> tuple:
    """(the tracker, `model_source`, `model_args`) of a call of `log_experiment_args`."""
    arguments = _bound(log_experiment_args, args, kwargs).arguments
    return arguments.get("self"), arguments.get("model_source"), arguments.get("model_args")


def name_run(tracker_module, tracker, name: str) -> None:
    """Name a run (`GeneralConfigTracker.model_name`, and its results folder's name)."""
    tracker.model_name = name
    tracker.model_name_sanitized = sanitized_model_name(tracker_module, name)
CUSTOM_DATASET_HINT = "Custom kwargs can be passed to `--metadata`"


class _HintFilter:
    """A logging filter dropping lm-eval's custom-dataset hint for one task."""

    def __init__(self, task: str):
        self.prefix = f"{task}: {CUSTOM_DATASET_HINT}"

    def filter(self, record) -> bool:
        return not str(record.getMessage()).startswith(self.prefix)


def task_logger():
    """The logger of the module that defines lm-eval's `Task.download` (0.4: `lm_eval.api.task`,
    0.5: `lm_eval.api.task._task`)."""
    import logging

    from lm_eval.api.task import ConfigurableTask

    return logging.getLogger(ConfigurableTask.download.__module__)


def without_custom_dataset_hint(task: str, download):
    """`download()` (a task's `Task.download`) with lm-eval's RULER hint for `task` dropped; its
    other messages, and the hint for every other task, still go out."""
    logger, hint = task_logger(), _HintFilter(task)
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
        from copy_tasks.common.import_hooks import spec_running_after

        return spec_running_after(fullname, path, self._after_load)

    def _after_load(self, _module) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
            self.seed()


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


def missing_task_names(error: Exception) -> list[str] | None:
    """The names of lm-eval's "Tasks not found" error (`EvaluatorConfig.process_tasks`), or None
    for any other error.

    >>> missing_task_names(ValueError("Tasks not found: phonebok_copy_20, x")), missing_task_names(ValueError("no"))
    (['phonebok_copy_20', 'x'], None)
    """
    prefix = "Tasks not found: "
    text = str(error)
    return [name.strip() for name in text[len(prefix):].split(",")] if text.startswith(prefix) else None


def unindexed_task_names(config, manager) -> list[str]:
    """The names among a run's tasks, as `EvaluatorConfig.process_tasks` left them, that its task
    manager's index lacks: 0.4 refuses those in `process_tasks` ("Tasks not found"), 0.5 keeps
    them and fails on them only when it loads the tasks, after the model (`task@preset`: 0.5's
    preset of a task, read by its name)."""
    known = set(manager.all_tasks)
    return [name for name in config.tasks if isinstance(name, str) and name.split("@", 1)[0] not in known]


def indexed_task_names(config) -> list[str]:
    """Every task and group name lm-eval's index holds for a run's `EvaluatorConfig` (its
    `--include_path` included): what a misspelled name is compared with."""
    from lm_eval.tasks import TaskManager

    index = TaskManager(include_path=getattr(config, "include_path", None), metadata=config.metadata or {})
    return list(index.all_tasks)


def evaluator_config_fields(config):
    """(metadata, tasks, model, batch_size, model_args, chat template, limit) of lm-eval's
    `EvaluatorConfig` for a run (its `metadata` holds the `--model_args` too, merged in; the chat
    template: `--apply_chat_template`, False, True or a template's name)."""
    return (config.metadata, config.tasks, getattr(config, "model", None), getattr(config, "batch_size", None),
            getattr(config, "model_args", None) or {}, getattr(config, "apply_chat_template", False),
            getattr(config, "limit", None))


def unsupported_on_this_lm_eval(config, environment) -> str | None:
    """Why lm-eval itself cannot run what a run's `EvaluatorConfig` asks (in a process whose
    environment is `environment`), or None. On the pre-release 0.5.0.dev1:
    - `--samples` with `--log_samples`: it numbers the chosen docs by their own index, and its
      `evaluator_utils._build_logged_samples` still reads them by position
      (`doc_id_true = indices[doc_id] if indices else doc_id`): an IndexError after the run;
    - several processes (`accelerate launch`): its rank 1 ends during the gather of the results
      (seen in our data-parallel tests; cause not found), so the run fails at the end."""
    import lm_eval

    if not str(lm_eval.__version__).startswith("0.5.0.dev"):
        return None
    if getattr(config, "samples", None) and getattr(config, "log_samples", False):
        return ("--samples with --log_samples fails in lm-eval 0.5.0.dev1 after the run (its "
                "_build_logged_samples reads the chosen docs by position, 'doc_id_true = indices[doc_id]', while it "
                "numbers them by their own index): leave out --log_samples, or use lm-eval 0.4.13")
    if int(environment.get("WORLD_SIZE", "1") or 1) > 1:
        return ("several processes (accelerate launch) fail under lm-eval 0.5.0.dev1 as it gathers the results; "
                "run in one process, or with lm-eval 0.4.13")
    return None


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


class BuildArguments:
    """What a `Task.build_all_requests` call asks, read from its keyword arguments (None where
    one is not given): the docs (`limit`, `samples`), the shard (`rank`, `world_size`), the
    request cache (`cache_requests`) and the prompt form (`apply_chat_template`,
    `system_instruction`)."""

    def __init__(self, kwargs: dict):
        self.limit, self.samples = kwargs.get("limit"), kwargs.get("samples")
        self.rank, self.world_size = kwargs.get("rank"), kwargs.get("world_size")
        self.cache_requests = kwargs.get("cache_requests")
        self.apply_chat_template, self.system_instruction = kwargs.get("apply_chat_template"), kwargs.get(
            "system_instruction")


def build_all_requests_arguments(kwargs: dict) -> BuildArguments:
    """`build_all_requests`' keyword arguments (all of them: lm-eval 0.4 takes no positional
    ones), by what they ask.

    >>> run = build_all_requests_arguments({"limit": 3, "rank": 1, "apply_chat_template": True})
    >>> run.limit, run.samples, run.rank, run.apply_chat_template
    (3, None, 1, True)
    """
    return BuildArguments(kwargs)


def without_request_cache(build_arguments: dict) -> dict:
    """`build_all_requests`' keyword arguments with lm-eval's request cache neither read nor written.

    >>> without_request_cache({"cache_requests": True, "limit": 3})
    {'cache_requests': False, 'limit': 3, 'rewrite_requests_cache': False}
    """
    return {**build_arguments, "cache_requests": False, "rewrite_requests_cache": False}


def built_requests(task) -> list:
    """The requests (`Instance`s) a task built in `build_all_requests` (`Task.instances`)."""
    return task.instances or []


NO_FILTER = "none"  # the filter name of a metric's results key when the task filters nothing


def results_key(metric: str, filter_name: str = NO_FILTER, stderr: bool = False) -> str:
    """The key of a metric (or its stderr) in lm-eval's results, under a filter (`none`: lm-eval's
    name for no filter).

    >>> results_key("exact_match"), results_key("exact_match", stderr=True), results_key("acc", "strict")
    ('exact_match,none', 'exact_match_stderr,none', 'acc,strict')
    """
    return f"{metric}{'_stderr' if stderr else ''},{filter_name}"


def parse_results_key(key: str) -> tuple[str, str, bool] | None:
    """(metric, filter, whether it is the stderr) of a results key, or None for a key that is no
    metric's (`alias`, `samples`...).

    >>> parse_results_key("exact_match_stderr,none"), parse_results_key("acc,strict"), parse_results_key("alias")
    (('exact_match', 'none', True), ('acc', 'strict', False), None)
    """
    if "," not in key:
        return None
    metric, _, filter_name = key.partition(",")
    return metric.removesuffix("_stderr"), filter_name, metric.endswith("_stderr")


def metric_of_key(key: str) -> str | None:
    """The metric a results key holds (stderr or not), or None for a key that is no metric's.

    >>> metric_of_key("exact_match_stderr,none"), metric_of_key("alias")
    ('exact_match', None)
    """
    parsed = parse_results_key(key)
    return parsed[0] if parsed else None


def results_table(results: dict, table: str = "results") -> dict:
    """Task or group name -> its metrics, in what `evaluate` returns (`results` or `groups`)."""
    return results.get(table) or {}


def logged_samples(results: dict, task: str) -> list[dict]:
    """The samples `evaluate` logged for a task (none unless samples were logged)."""
    return (results.get("samples") or {}).get(task, [])


def group_subtasks(results: dict) -> dict[str, list[str]]:
    """Group name -> the names of its tasks and groups, in what `evaluate` returns."""
    return results.get("group_subtasks") or {}


# The tables of what `evaluate` returns that are keyed by task name.
TASK_KEYED_TABLES = ("results", "configs", "versions", "n-shot", "higher_is_better", "n-samples", "samples",
                     "task_hashes")
GROUP_QUALIFIER = "::"


def with_plain_task_names(results: dict, tasks: set[str]) -> None:
    """Name our `tasks` in what `evaluate` returns as 0.4 does, so that results files, samples files
    and the leaderboard read alike on both: 0.5 names a task of a group `group::task`. A name
    another entry already holds is left qualified.

    >>> results = {"results": {"g::a": 1, "b": 2}, "group_subtasks": {"g": ["g::a"]}}
    >>> with_plain_task_names(results, {"a", "b"}); results
    {'results': {'a': 1, 'b': 2}, 'group_subtasks': {'g': ['a']}}
    """
    def plain(name: str, taken) -> str:
        short = name.rsplit(GROUP_QUALIFIER, 1)[-1]
        return short if short != name and short in tasks and short not in taken else name

    for table in TASK_KEYED_TABLES:
        if isinstance(entries := results.get(table), dict):
            results[table] = {plain(name, entries): value for name, value in entries.items()}
    if isinstance(groups := results.get("group_subtasks"), dict):
        results["group_subtasks"] = {group: [plain(name, groups) for name in members]
                                     for group, members in groups.items()}


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


class TokenRequest(tuple):
    """A token-level loglikelihood request of `HFLM`: lm-eval's tuple (cache key, context
    tokens, continuation tokens), its parts named.

    >>> request = TokenRequest(("key", [1, 2], [3]))
    >>> request.cache_key, request.context, request.continuation
    ('key', [1, 2], [3])
    """

    __slots__ = ()
    cache_key = property(lambda self: self[0], doc="lm-eval's response cache's key of the request, or None")
    context = property(lambda self: self[1], doc="the context's tokens")
    continuation = property(lambda self: self[2], doc="the continuation's tokens")


def cache_answer(lm, request: TokenRequest, answer: tuple) -> None:
    """Hand a request's (log-probability, is_greedy) to lm-eval's response cache, as `hf` does."""
    if request.cache_key is not None:
        lm.cache_hook.add_partial("loglikelihood", request.cache_key, answer)


def batched(lm, requests, sort_key, override_bs=None):
    """(the reordering, its batches) of token-level requests, as `hf` batches them: by
    `--batch_size`, or by lm-eval's automatic batch sizes for `auto`. The batches hold
    `TokenRequest`s (`sort_key` is given them too); their results, in order, go back through
    `reordering.get_original(results)`."""
    from lm_eval.models.utils import Collator

    reordering = Collator([TokenRequest(request) for request in requests], sort_fn=sort_key)
    automatic = lm.batch_size == "auto" and not override_bs
    size = override_bs or (0 if automatic else lm.batch_size)
    return reordering, reordering.get_batched(n=size, batch_fn=lm._batch_scheduler if automatic else None)


def command_line():
    """lm-eval's command line (`lm_eval`), imported: ImportError where lm-eval cannot be."""
    from lm_eval.__main__ import cli_evaluate

    return cli_evaluate


def run_command_line(cli_evaluate, arguments: list[str]) -> None:
    """Run lm-eval's command line (`command_line()`) as `lm_eval run ARGUMENTS`."""
    sys.argv = ["lm-eval", "run", *arguments]
    cli_evaluate()


def metadata_as_json(arguments: list[str]) -> list[str]:
    """lm-eval command-line arguments with `--metadata key=value,...` given as JSON: 0.4 reads
    both forms, 0.5 JSON alone. JSON stays as written; malformed JSON is lm-eval's "Invalid JSON"
    error (`is_bad_json_argument`).

    >>> metadata_as_json(["--tasks", "t", "--metadata", "copy_tasks_docs=5,copy_tasks_seed=x"])
    ['--tasks', 't', '--metadata', '{"copy_tasks_docs": 5, "copy_tasks_seed": "x"}']
    >>> metadata_as_json(["--metadata={}", "--metadata", "{'x': 1}"])
    Traceback (most recent call last):
    ValueError: Invalid JSON: {'x': 1}. Hint: Use double quotes for JSON strings.
    """
    import json

    from lm_eval.utils import simple_parse_args_string

    def as_json(value: str) -> str:
        if value.lstrip().startswith("{"):
            try:
                json.loads(value)
            except json.JSONDecodeError:
                raise ValueError(f"Invalid JSON: {value}. Hint: Use double quotes for JSON strings.") from None
            return value
        return json.dumps(simple_parse_args_string(value))

    converted, arguments = [], list(arguments)
    while arguments:
        argument = arguments.pop(0)
        if argument == "--metadata" and arguments:
            converted += [argument, as_json(arguments.pop(0))]
        elif argument.startswith("--metadata="):
            converted.append("--metadata=" + as_json(argument.split("=", 1)[1]))
        else:
            converted.append(argument)
    return converted


def is_bad_json_argument(error: Exception) -> bool:
    """Whether `error` is lm-eval's command line refusing an argument that is not JSON
    (`--model_args`, `--metadata`, ...): a user's mistake, told in one line.

    >>> is_bad_json_argument(ValueError("Invalid JSON: {x}. Hint: ...")), is_bad_json_argument(ValueError("other"))
    (True, False)
    """
    return isinstance(error, ValueError) and str(error).startswith("Invalid JSON")


def new_request(request_type: str, doc: dict, arguments: tuple, idx: int = 0, task_name: str = "request"):
    """An lm-eval `Instance` (a request a model answers), on either lm-eval: 0.4 takes the task's
    name and doc id inside `metadata`, 0.5 as arguments of their own (`doc_id` a keyword).

    >>> new_request("loglikelihood", {}, ("ab:", " 1")).arguments
    ('ab:', ' 1')
    """
    from lm_eval.api.instance import Instance

    if _instance_takes_task_name():
        return Instance(request_type=request_type, doc=doc, arguments=arguments, task_name=task_name, idx=idx,
                        doc_id=0)
    return Instance(request_type=request_type, doc=doc, arguments=arguments, idx=idx, metadata=(task_name, 0, 1))


def _instance_takes_task_name() -> bool:
    import inspect

    from lm_eval.api.instance import Instance

    return "task_name" in inspect.signature(Instance).parameters


def construct_requests_keywords(task_name: str, doc_id: int) -> dict:
    """The keywords `Task.construct_requests` takes to place its requests in their task and doc:
    0.4 the task's name and the doc id inside `metadata`, 0.5 `doc_id` alone (a keyword).

    >>> list(construct_requests_keywords("t", 3)) in (["doc_id"], ["metadata"])
    True
    """
    return {"doc_id": doc_id} if _instance_takes_task_name() else {"metadata": (task_name, doc_id, 1)}


def _task_classes_by_output_type() -> dict:
    """lm-eval 0.5's task class for each output type; none on 0.4."""
    from lm_eval.api.task import Task

    return getattr(Task, "_registry", None) or {}


_TASK_CLASSES_BY_OUTPUT_TYPE: dict = {}


def task_class_for(task_class, output_type):
    """`task_class` (a subclass of lm-eval's `ConfigurableTask`) as lm-eval builds requests of
    `output_type` with it: itself on lm-eval 0.4, whose `ConfigurableTask` builds every type; on
    0.5, whose `ConfigurableTask` is the base `Task` that leaves requests to one subclass per output
    type (`Task._registry`), a subclass of both (made once).

    >>> from lm_eval.api.task import ConfigurableTask
    >>> class Ours(ConfigurableTask): pass
    >>> typed = task_class_for(Ours, "generate_until")
    >>> issubclass(typed, Ours), typed is task_class_for(Ours, "generate_until")
    (True, True)
    """
    by_output_type = _task_classes_by_output_type()
    if output_type not in by_output_type or issubclass(task_class, by_output_type[output_type]):
        return task_class
    key = (task_class, output_type)
    if key not in _TASK_CLASSES_BY_OUTPUT_TYPE:
        _TASK_CLASSES_BY_OUTPUT_TYPE[key] = type(task_class.__name__, (task_class, by_output_type[output_type]),
                                                 {"__module__": task_class.__module__})
    return _TASK_CLASSES_BY_OUTPUT_TYPE[key]


def only_request(built):
    """The one request lm-eval's `construct_requests` built for a doc: 0.4 returns it, 0.5 a list of it.

    >>> request = new_request("loglikelihood", {}, ("ab:", " 1"))
    >>> only_request(request) is request, only_request([request]) is request
    (True, True)
    """
    if isinstance(built, list):
        if len(built) != 1:
            raise ValueError(f"lm-eval built {len(built)} requests for a doc of ours; one was expected")
        return built[0]
    return built


class _ScoredByTheTask:
    """A metric named as ours that lm-eval 0.5 never computes; its results name it by `str`."""

    def __init__(self, name: str):
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"copy-tasks: {self.__name__} is scored by the task's process_results, not by lm-eval")

    def __str__(self) -> str:
        return self.__name__


def metrics_scored_by_the_task(metric_list: list[dict]) -> list[dict]:
    """A task config's `metric_list` for a task whose `process_results` gives every metric's value
    (ours): as it is on 0.4; on 0.5, which checks each name it knows against its own metric's output
    type (`exact_match` is a generation metric there, refused on a teacher-forced task) and warns
    about each it does not know, each name becomes a callable of that name that lm-eval never calls.

    >>> [metric_name(entry) for entry in metrics_scored_by_the_task([{"metric": "exact_match"}])]
    ['exact_match']
    """
    if not _task_classes_by_output_type():
        return metric_list
    return [{**entry, "metric": _ScoredByTheTask(entry["metric"])} if isinstance(entry["metric"], str) else entry
            for entry in metric_list]


def metric_name(entry: dict) -> str:
    """The name of a `metric_list` entry's metric (`metrics_scored_by_the_task` may have made it a callable)."""
    metric = entry["metric"]
    return metric if isinstance(metric, str) else metric.__name__


def task_index_of(manager) -> dict:
    """A `TaskManager`'s index, name -> entry (`yaml_path` and the rest): public on 0.4
    (`task_index`), private on 0.5 (`_task_index`)."""
    return manager.task_index if hasattr(manager, "task_index") else manager._task_index


def request_for_question(request, arguments: tuple, idx: int):
    """A copy of lm-eval's `request` for another question of its doc: its own arguments and index,
    everything else (task, doc, doc id, metadata) as lm-eval made it, and lists of responses of
    its own (a copy that shared them would collect every question's answers in one list, and
    each question would be scored on the first).

    >>> first = new_request("generate_until", {}, ("ab:", {}))
    >>> second = request_for_question(first, ("ab: 1 cd:", {}), 1)
    >>> second.resps.append(" 2"); first.resps, second.resps, second.idx
    ([], [' 2'], 1)
    """
    import dataclasses

    return dataclasses.replace(request, arguments=arguments, idx=idx, resps=[], filtered_resps={})
