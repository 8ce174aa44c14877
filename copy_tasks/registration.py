"""How lm-eval finds our tasks without `--include_path`.

lm-eval 0.4.x has no plugin mechanism: `TaskManager` indexes `lm_eval/tasks/**.yaml` plus
`--include_path`. We make our folder one more built-in folder by wrapping
`lm_eval.tasks._index.TaskIndex.build`: whenever lm-eval's own task folder is indexed, ours
is indexed right after it (so a user's `--include_path` still comes last and still wins).
Folders are deduplicated by resolved path, so if lm-eval ever indexes our folder itself (the
`lm_eval.tasks` entry-point proposal) nothing is indexed twice.

The same hook makes lm-eval's CLI check our `--metadata` options before it loads a model
(`copy_tasks.cli_checks`), and hands the model object to our tasks before lm-eval builds their
requests (wrapping `lm_eval.evaluator.evaluate`), so that they count what the backend that
runs them cuts (`copy_tasks.harness.task`), from the CLI and from Python alike.

The wraps are installed by `copy_tasks.pth` at interpreter start, lazily: an import hook waits
for `lm_eval.tasks._index` and `lm_eval.__main__` and patches them as they load, so Python processes that never import
lm-eval pay nothing but this module's import. Set COPY_TASKS_AUTOREGISTER=0 to switch it off
(then use `copy-tasks run`, `copy_tasks.task_manager()` or `--include_path`).

This module must stay cheap to import: it runs in every Python process of the environment.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from pathlib import Path
from typing import Any

INDEX_MODULE = "lm_eval.tasks._index"
CLI_MODULE = "lm_eval.__main__"
EVALUATOR_MODULE = "lm_eval.evaluator"
AUTOREGISTER_ENV = "COPY_TASKS_AUTOREGISTER"
_PATCHED = "_copy_tasks_patched"


def task_config_dir() -> Path:
    """The folder of our task YAMLs: inside the installed wheel, or beside a source checkout."""
    packaged = Path(__file__).resolve().parent / "task_configs"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "task_configs"


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
    """Wrap `TaskIndex.build` of an imported `lm_eval.tasks._index` (idempotent)."""
    task_index = index_module.TaskIndex
    if getattr(task_index, _PATCHED, False):
        return
    original_build = task_index.build
    builtin_dir = Path(index_module.__file__).parent

    def build(paths, *args, **kwargs):
        return original_build(with_our_tasks(list(paths), builtin_dir), *args, **kwargs)

    task_index.build = staticmethod(build)
    setattr(task_index, _PATCHED, True)


def patch_cli(cli_module: Any) -> None:
    """Make `lm_eval` check our options before it loads a model (idempotent)."""
    from copy_tasks.cli_checks import exit_on_option_error

    main = cli_module.cli_evaluate
    if not getattr(main, _PATCHED, False):
        cli_module.cli_evaluate = exit_on_option_error(main)
        setattr(cli_module.cli_evaluate, _PATCHED, True)


def bind_model_to_tasks(lm: Any, task_dict: Any) -> None:
    """Give every copy-tasks task in lm-eval's (possibly nested) task dict the model object."""
    from copy_tasks.harness.task import CopyTask

    pending = [task_dict]
    while pending:
        item = pending.pop()
        if isinstance(item, CopyTask):
            item.bind_model(lm)
        elif isinstance(item, dict):
            pending.extend(item.values())


def patch_evaluator(evaluator_module: Any) -> None:
    """Wrap `lm_eval.evaluator.evaluate` so our tasks see the model first (idempotent)."""
    import functools
    import inspect

    original = evaluator_module.evaluate
    if getattr(original, _PATCHED, False):
        return
    signature = inspect.signature(original)

    @functools.wraps(original)
    def evaluate(*args, **kwargs):
        arguments = signature.bind_partial(*args, **kwargs).arguments
        bind_model_to_tasks(arguments.get("lm"), arguments.get("task_dict"))
        return original(*args, **kwargs)

    setattr(evaluate, _PATCHED, True)
    evaluator_module.evaluate = evaluate


_PATCHES = {INDEX_MODULE: patch_task_index, CLI_MODULE: patch_cli, EVALUATOR_MODULE: patch_evaluator}


class _PatchWhenImported(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when a module we patch is found, patches it as it loads."""

    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def install() -> None:
    """Make every `TaskManager` of this process index our tasks, and lm-eval's CLI check our
    options early (idempotent). Modules already imported are patched now, others on import."""
    for name, patch in _PATCHES.items():
        if name in sys.modules:
            patch(sys.modules[name])
    if not any(isinstance(finder, _PatchWhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchWhenImported())


def task_manager(**kwargs: Any):
    """An lm-eval `TaskManager` that includes our tasks, for `lm_eval.simple_evaluate`.

    Works whether or not the automatic registration is switched on:
    `simple_evaluate(model=..., tasks=["phonebook_copy"], task_manager=task_manager())`.
    """
    install()
    from lm_eval.tasks import TaskManager

    return TaskManager(**kwargs)
