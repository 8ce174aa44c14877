"""The import watcher behind the start-up hook (`copy_tasks._autoregister`): a meta path finder
that does nothing until one of the lm-eval modules we patch is imported, then patches it
(`copy_tasks.harness.registration`); and `install` and `task_manager`, which patch lm-eval for
one process whether or not the hook is on. It runs in every interpreter of the environment, so
at import it loads only `lm_eval_internals`, which imports nothing but `sys`, and `switches`; the patches are
imported when they are needed (this module imports `registration`, never the other way).
"""

import sys

from copy_tasks.common.import_hooks import spec_running_after
from copy_tasks.harness.lm_eval_internals import PATCHED_MODULES
from copy_tasks.harness.switches import OFF_VALUES, switched_off  # noqa: F401  (the hook's switch)

AUTOREGISTER_ENV = "COPY_TASKS_AUTOREGISTER"


# Besides lm-eval's modules that `registration` patches: module name -> what runs right after it
# loads, given the module (entered by `after_import`; the start-up hook registers our model
# types when lm-eval's `hf` backend is imported).
AFTER_IMPORT = {}


def after_import(module_name: str, hook) -> None:
    """Run `hook(module)` right after `module_name` is imported, and at once if it already was."""
    AFTER_IMPORT[module_name] = hook
    if module_name in sys.modules:
        hook(sys.modules[module_name])


def _run_after_import(module) -> None:
    if module.__name__ in AFTER_IMPORT:
        AFTER_IMPORT[module.__name__](module)
    else:
        from copy_tasks.harness.registration import patch

        patch(module)


class PatchWhenImported:
    """Finds nothing itself: when a module we patch is found, patches it right after it loads."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in PATCHED_MODULES and fullname not in AFTER_IMPORT:
            return None
        return spec_running_after(fullname, path, _run_after_import)


def install_watcher() -> None:
    if not any(isinstance(finder, PatchWhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, PatchWhenImported())


def install() -> None:
    """Patch the lm-eval modules already imported, and the others as they are imported."""
    from copy_tasks.harness.registration import patch

    for name in PATCHED_MODULES:
        if name in sys.modules:
            patch(sys.modules[name])
    install_watcher()


def task_manager(**kwargs):
    """An lm-eval `TaskManager` that includes our tasks, for `lm_eval.simple_evaluate`.

    Works whether or not the start-up hook is switched on:
    `simple_evaluate(model=..., tasks=["phonebook_copy"], task_manager=task_manager())`. Our
    options go to the task manager, `task_manager(metadata={"copy_tasks_docs": 5})`: lm-eval
    drops `simple_evaluate`'s own `metadata=` when it is given a task manager, so that
    combination is refused.
    """
    install()
    from lm_eval.tasks import TaskManager

    return TaskManager(**kwargs)
