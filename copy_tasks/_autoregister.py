"""Imported by `copy_tasks.pth` at interpreter start: registers our tasks with lm-eval.

Switch off with COPY_TASKS_AUTOREGISTER=0 (see `copy_tasks.registration`).
"""

import os

from copy_tasks.registration import AUTOREGISTER_ENV, install

if os.environ.get(AUTOREGISTER_ENV, "1") != "0":
    install()
