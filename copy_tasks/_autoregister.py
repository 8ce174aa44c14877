"""The start-up hook: imported by `copy_tasks.pth` at the start of every Python interpreter in
an environment where copy-tasks is installed, so it costs almost nothing (measured by
`benchmarks/bench_startup.py`): it installs the import watcher of `copy_tasks.harness.startup`,
which patches lm-eval only if and when lm-eval is imported.

Switch it off with COPY_TASKS_AUTOREGISTER=0 (or false, no, off): then use `copy-tasks run`,
`copy_tasks.task_manager()` or `--include_path`.
"""

import os

from copy_tasks.harness.startup import AUTOREGISTER_ENV, install_watcher, switched_off

if not switched_off(os.environ.get(AUTOREGISTER_ENV)):
    install_watcher()
