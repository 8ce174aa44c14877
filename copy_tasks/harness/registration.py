"""How lm-eval finds our tasks without `--include_path`, checks our options before a model
loads, and hands our tasks the model that runs them.

lm-eval 0.4.x has no plugin mechanism: `TaskManager` indexes `lm_eval/tasks/**.yaml` plus
`--include_path`. The start-up hook (`copy_tasks._autoregister`, run by `copy_tasks.pth` in
every interpreter of the environment; `copy_tasks.harness.startup`) waits for lm-eval's modules
to be imported and then makes the patches below, on the targets `lm_eval_internals.PATCH_TARGETS`
names (what each is for is said there, once), through `lm_eval_internals.patch`, which also
reads the wrapped calls' arguments for us. Our tasks' folder is indexed, deduplicated by
resolved path; a command-line run checks our options and data sources before it loads a model
(`copy_tasks.harness.cli_checks`); our tasks see the model before lm-eval builds their requests
(`copy_tasks.harness.task`), and what `evaluate` returns is completed
(`copy_tasks.harness.complete_results`); lm-eval's response cache (`--use_cache`) is kept apart
per model and arguments; in a command-line run, an error of ours raised while it
runs is one line and exit status 2; runs of our analytic models are named after them; lm-eval's
git lookup is quiet outside a git checkout.
A patch that fails (an lm-eval that renamed what we wrap) leaves that module untouched and
logs one warning saying so.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from copy_tasks.harness import lm_eval_internals as internals

log = logging.getLogger("copy_tasks")


def task_config_dir() -> Path:
    """The folder of our task YAMLs: inside the installed wheel, or beside a source checkout."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "task_configs"
    return packaged if packaged.is_dir() else package.parent / "task_configs"


def with_our_tasks(paths: list[Path], builtin_dir: Path) -> list[Path]:
    """Insert our folder right after lm-eval's built-in one and drop repeated folders.

    >>> with_our_tasks([Path("/lm/tasks"), Path("/mine")], Path("/lm/tasks"))[1] == task_config_dir()
    True
    """
    ours = task_config_dir().resolve()
    builtin = builtin_dir.resolve()
    wanted: list[Path] = []
    for path in paths:
        wanted.append(path)
        if Path(path).resolve() == builtin:
            wanted.append(ours)
    unique: list[Path] = []
    seen: set[Path] = set()
    for path in wanted:
        key = Path(path).resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def patch_task_index(index_module: Any) -> None:
    """Wrap `TaskIndex.build` so that our folder is indexed, and lm-eval's own folder's index
    is read from our cache (`copy_tasks.harness.task_index_cache`) (idempotent)."""
    from lm_eval import __version__ as lm_eval_version

    from copy_tasks.harness import task_index_cache

    builtin_dir = Path(index_module.__file__).parent
    codec = task_index_cache.entry_codec(*internals.task_index_entry_classes(index_module))

    def make(build):
        def build_with_ours(paths, *args, **kwargs):
            paths = with_our_tasks(list(paths), builtin_dir)
            if args or kwargs:  # not the plain call TaskManager makes: lm-eval's own, uncached
                return build(paths, *args, **kwargs)
            return task_index_cache.merged([
                task_index_cache.stored_index(path, lm_eval_version, lambda root: build([root]), codec)
                if Path(path).resolve() == builtin_dir.resolve() else build([path]) for path in paths])

        return build_with_ours

    internals.patch(index_module, "task_index", make)


COMMAND_LINE = {"run": False}  # set when a command-line run builds its tasks (`patch_option_checks`)


def patch_option_checks(config_module: Any) -> None:
    """Wrap `EvaluatorConfig.process_tasks` so that a run checks our options first (idempotent)."""
    from copy_tasks.harness.cli_checks import check_or_exit
    from copy_tasks.probes.options import UserError

    def make(process_tasks):
        def checked(*args, **kwargs):
            COMMAND_LINE["run"] = True
            config, metadata = internals.process_tasks_arguments(process_tasks, args, kwargs)
            config_metadata, tasks, model, batch_size, model_args, chat, limit = internals.evaluator_config_fields(
                config)
            check_or_exit(metadata or config_metadata or {}, tasks, model, batch_size, model_args, chat, limit)
            if (unsupported := internals.unsupported_on_this_lm_eval(config, os.environ)) is not None:
                exit_in_one_line_on_the_command_line(UserError(unsupported))
            try:
                manager = process_tasks(*args, **kwargs)
            except ValueError as error:
                if (missing := internals.missing_task_names(error)) is None:
                    raise
            else:
                if not (missing := internals.unindexed_task_names(config, manager)):
                    return manager
            known = internals.indexed_task_names(config)
            exit_in_one_line_on_the_command_line(UserError(unknown_tasks(missing, known)))

        return checked

    internals.patch(config_module, "option_checks", make)


def unknown_tasks(missing: list[str], known: list[str]) -> str:
    """What a run says of task names lm-eval's index does not hold: each with its nearest names.

    >>> unknown_tasks(["phonebok_copy_20"], ["phonebook_copy_20", "phonebook_copy_tf_20", "mqar_8"])
    '--tasks phonebok_copy_20: no such task (nearest: phonebook_copy_20, phonebook_copy_tf_20); copy-tasks list \
names our families, lm_eval ls tasks every task'
    >>> unknown_tasks(["zzz"], ["mqar_8"])
    '--tasks zzz: no such task (nothing near it); copy-tasks list names our families, lm_eval ls tasks every task'
    """
    import difflib

    named = []
    for name in missing:
        nearest = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
        named.append(f"{name}: no such task ({'nearest: ' + ', '.join(nearest) if nearest else 'nothing near it'})")
    return f"--tasks {'; '.join(named)}; copy-tasks list names our families, lm_eval ls tasks every task"


def bind_model_to_tasks(lm: Any, task_dict: Any) -> list:
    """Give every copy-tasks task in lm-eval's (possibly nested) task dict the model object;
    return those tasks."""
    from copy_tasks.harness.task import CopyTask

    pending, ours = [task_dict], []
    while pending:
        item = pending.pop()
        if isinstance(item, CopyTask):
            item.bind_model(lm)
            ours.append(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return ours


def patch_evaluator(evaluator_module: Any) -> None:
    """Wrap `evaluator.evaluate` so that our tasks see the model first and their results are
    complete, and lm-eval's git, torch-seed and environment helpers (`lm_eval_internals`)
    (idempotent)."""
    from copy_tasks.harness.complete_results import complete_results
    from copy_tasks.probes.options import UserError

    def make(evaluate):
        def evaluate_with_our_tasks_bound(*args, **kwargs):
            ours = bind_model_to_tasks(*internals.evaluate_model_and_tasks(evaluate, args, kwargs))
            try:
                return complete_results(evaluate(*args, **kwargs), ours)
            except UserError as error:
                exit_in_one_line_on_the_command_line(error)

        return evaluate_with_our_tasks_bound

    internals.patch(evaluator_module, "evaluate", make)
    internals.patch(evaluator_module, "simple_evaluate",
               lambda original: refuse_dropped_metadata(response_cache_per_model(original)))
    internals.patch(evaluator_module, "git_hash", internals.git_hash_quietly)
    internals.patch(evaluator_module, "torch_seed", internals.torch_seeded_on_import)
    internals.patch(evaluator_module, "env_info", internals.env_info_without_torch)


def exit_in_one_line_on_the_command_line(error: Exception) -> NoReturn:
    """On a command-line run, print `error` (a UserError) in one line and exit with status 2;
    in Python, raise it."""
    if not COMMAND_LINE["run"]:
        raise error
    print(f"copy-tasks: error: {error}", file=sys.stderr)
    raise SystemExit(2) from None


def refuse_dropped_metadata(original):
    """lm-eval's `simple_evaluate` (`original`), refusing our options in `metadata=` beside a
    `task_manager=` whose own metadata lacks them: lm-eval (0.4.13) then uses the task manager's
    metadata and drops the argument, so a run asking for `copy_tasks_docs=5` would silently score
    every doc. (lm-eval's command line passes both, the same: that passes.) A UserError raised
    as it makes the model (a bad model arg of our models) is one line on the command line."""
    from copy_tasks.probes.options import PREFIX, UserError

    def checked(*args, **kwargs):
        metadata, manager = internals.simple_evaluate_metadata_and_task_manager(original, args, kwargs)
        kept = (getattr(manager, "metadata", None) or {}) if manager is not None else metadata
        dropped = sorted(key for key in metadata if str(key).startswith(PREFIX)
                         and (not isinstance(kept, dict) or kept.get(key) != metadata[key]))
        if dropped:
            raise UserError(f"simple_evaluate(metadata={{{', '.join(map(repr, dropped))}: ...}}, task_manager=...): "
                            "lm-eval drops metadata when it is given a task manager, so these options would not "
                            "apply; pass them to the task manager instead: "
                            "task_manager=copy_tasks.task_manager(metadata={...})")
        try:
            return original(*args, **kwargs)
        except UserError as error:
            exit_in_one_line_on_the_command_line(error)

    return checked


def response_cache_path(path: str, model: Any, model_args: Any) -> str:
    """The `use_cache` path copy-tasks gives lm-eval for `path`: one of its own for each model
    and its arguments (a digest of both, and of the model's version where one of ours has one:
    `model_info.VERSION_MARKER`), because lm-eval's response cache (`CachingLM`) keys its answers
    by request alone and would serve one model another's, or a model the answers of its older
    version. A model object is refused: its arguments cannot be read, so two objects could not be
    told apart.

    >>> response_cache_path("runs/U", "ngram_copier", "n=5")
    'runs/U_ngram_copier-a9f654b6f8c6'
    >>> response_cache_path("runs/U", "ngram_copier", {"n": 5})
    'runs/U_ngram_copier-a9f654b6f8c6'
    """
    import hashlib
    import json
    import re

    from lm_eval.utils import simple_parse_args_string

    from copy_tasks.harness.model_info import VERSION_MARKER
    from copy_tasks.probes.options import UserError

    if not isinstance(model, str):
        raise UserError(f"simple_evaluate(model=<{type(model).__name__} object>, use_cache={path!r}): lm-eval's "
                        "response cache keys answers by request alone, and copy-tasks cannot tell one model object "
                        "from another, so it could serve another model's answers; pass the model by name "
                        "(model='hf', model_args=...), which gives each model and its arguments a cache of its own, "
                        "or leave out use_cache")
    args = model_args if isinstance(model_args, dict) else simple_parse_args_string(model_args)
    version = getattr(internals.model_class(model), VERSION_MARKER, None)
    identity = json.dumps([model, {str(key): str(value) for key, value in args.items()},
                           *([] if version is None else [{"version": version}])], sort_keys=True)
    return f"{path}_{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}-{hashlib.sha256(identity.encode()).hexdigest()[:12]}"


def response_cache_per_model(original):
    """lm-eval's `simple_evaluate` (`original`) with its response cache (`use_cache=PATH`,
    `--use_cache PATH`) kept apart per model and arguments (`response_cache_path`): lm-eval
    (0.4.13) writes `PATH_<model>-<digest>_rank<N>.db`, and a model that shares PATH with
    another is never served the other's answers."""
    @functools.wraps(original)
    def separated(*args, **kwargs):
        args, kwargs = internals.with_response_cache_path(original, args, kwargs, response_cache_path)
        return original(*args, **kwargs)

    return separated


def patch_run_naming(tracker_module: Any) -> None:
    """Wrap `GeneralConfigTracker.log_experiment_args` so that a run of our analytic models is
    named after the model and its args (idempotent)."""
    from copy_tasks.harness.model_info import ANALYTIC_MARKER, analytic_model_name

    def make(log_experiment_args):
        def named(*args, **kwargs):
            log_experiment_args(*args, **kwargs)
            tracker, source, model_args = internals.experiment_arguments(log_experiment_args, args, kwargs)
            if isinstance(source, str) and getattr(internals.model_class(source), ANALYTIC_MARKER, False):
                internals.name_run(tracker_module, tracker, analytic_model_name(source, model_args))

        return named

    internals.patch(tracker_module, "run_naming", make)


PATCHES = {internals.INDEX_MODULE: patch_task_index, internals.CONFIG_MODULE: patch_option_checks,
           internals.EVALUATOR_MODULE: patch_evaluator, internals.TRACKER_MODULE: patch_run_naming}


def patch(module: Any) -> None:
    """Patch one imported lm-eval module; if that fails, leave it as it is and say so once."""
    try:
        PATCHES[module.__name__](module)
    except Exception as error:  # an lm-eval whose internals moved: never break lm-eval itself
        log.warning("copy-tasks: could not hook into %s (%s: %s); it is left as lm-eval made it. Our tasks "
                    "still run with --include_path %s, and copy-tasks run checks nothing before the model "
                    "loads.", module.__name__, type(error).__name__, error, task_config_dir())
