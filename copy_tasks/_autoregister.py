"""The start-up hook: imported by `copy_tasks.pth` at the start of every Python interpreter in
an environment where copy-tasks is installed, so it costs almost nothing (measured by
`benchmarks/bench_startup.py`): it installs the import watcher of `copy_tasks.harness.startup`,
which patches lm-eval only if and when lm-eval is imported, and registers the model types of
`copy-tasks train` (`copy_tasks.models.trained_architectures`) when lm-eval's `hf` backend is.

Switch it off with COPY_TASKS_AUTOREGISTER=0 (or false, no, off): then use `copy-tasks run`,
`copy_tasks.task_manager()` or `--include_path`, and `copy_tasks.register_architectures()`.
"""

import os

from copy_tasks.harness.lm_eval_internals import HF_BACKEND_MODULE
from copy_tasks.harness.startup import AUTOREGISTER_ENV, after_import, install_watcher, switched_off


def _register_architectures(_module) -> None:
    from copy_tasks.models.trained_architectures import register

    register()


if not switched_off(os.environ.get(AUTOREGISTER_ENV)):
    install_watcher()
    after_import(HF_BACKEND_MODULE, _register_architectures)
