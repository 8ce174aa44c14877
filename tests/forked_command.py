"""Run a console script (`copy-tasks`, `lm_eval`) in a fork of the test process.

A fresh interpreter spends 5-10 s importing torch, transformers and lm-eval before a command
does anything; the test process has imported them already. A fork starts from there, and is
still a process of its own: its working directory, environment, standard streams, exit code
and any state the command changes end with it. What the test process has set up for pytest
(its capture of the streams, of log records and of warnings, lm-eval's configured logging and
warn-once memories) is undone in the child first, so the command prints what it prints in a
fresh interpreter.

    >>> run_forked(["copy-tasks", "list"], Path.cwd(), {}).returncode
    0
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from importlib import import_module
from pathlib import Path


def _copy_tasks_command_line():
    return import_module("copy_tasks.cli").main


def _lm_eval_command_line():
    return import_module("copy_tasks.harness.lm_eval_internals").command_line()


# Console script -> what imports and returns its entry point (called in the child, after the fork).
ENTRY_POINTS = {"copy-tasks": _copy_tasks_command_line, **dict.fromkeys(("lm_eval", "lm-eval"), _lm_eval_command_line)}

# The warning machinery as the interpreter set it up, before pytest records warnings per test.
_FRESH_WARNING_FILTERS = list(warnings.filters)
_FRESH_SHOW_WARNING = warnings.showwarning
_FRESH_SHOW_WARNING_MESSAGE = warnings._showwarnmsg_impl


class Timeout(subprocess.TimeoutExpired):
    pass


def run_forked(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    """`subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)` for one of
    ENTRY_POINTS, in a fork of this process (the variables of `env` are set over this
    process's environment: the ones read only at start-up, like COPY_TASKS_AUTOREGISTER, need a
    real subprocess)."""
    load_entry_point = ENTRY_POINTS[args[0]]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _run_child(load_entry_point, args, cwd, env, out.fileno(), err.fileno())
        returncode = _wait(pid, timeout, args)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(args, returncode, _text(out.read()), _text(err.read()))


def _run_child(load_entry_point, args: list[str], cwd: Path, env: dict[str, str], out: int, err: int) -> None:
    code = 1
    try:
        _fresh_streams(out, err)
        _fresh_logging_and_warnings()
        os.chdir(cwd)
        os.environ.update(env)
        sys.argv = [str(Path(sys.executable).parent / args[0]), *args[1:]]
        code = _exit_code(load_entry_point())
    except BaseException:  # noqa: B036  (the child reports everything and exits)
        traceback.print_exc()
    finally:
        try:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _exit_code(entry_point) -> int:
    try:
        code = entry_point()
    except SystemExit as stop:
        code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # what the interpreter does with SystemExit("message")
    return 1


def _fresh_streams(out: int, err: int) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True, errors="backslashreplace")
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


def _fresh_logging_and_warnings() -> None:
    """Loggers as a fresh interpreter has them once the same modules are imported: no handler on
    the root (pytest's capture handlers gone, records fall to logging's last resort on stderr),
    lm-eval's own handler made again on the new stderr, every warn-once memory empty."""
    root = logging.getLogger()
    root.handlers.clear()
    root.setLevel(logging.WARNING)
    for logger in logging.Logger.manager.loggerDict.values():
        for handler in getattr(logger, "handlers", ()):
            # not setStream, which flushes the old stream (maybe closed); logging's last resort,
            # a _StderrHandler, always writes to the sys.stderr of the moment
            if type(handler) is logging.StreamHandler:
                handler.stream = sys.stderr
    _forget_lm_evals_logging()
    from copy_tasks.harness import backend_limits

    backend_limits._WARNED.clear()  # its warn_once memory
    warnings.filters[:] = _FRESH_WARNING_FILTERS
    warnings.showwarning = _FRESH_SHOW_WARNING
    warnings._showwarnmsg_impl = _FRESH_SHOW_WARNING_MESSAGE
    getattr(warnings, "_filters_mutated", lambda: None)()


def _forget_lm_evals_logging() -> None:
    lm_eval_utils = sys.modules.get("lm_eval.utils")
    if lm_eval_utils is None:
        return
    lm_eval_utils._LOGGING_CONFIGURED = False
    logging.getLogger("lm_eval").handlers.clear()
    for cached in ("warning_once", "info_once"):
        if hasattr(getattr(lm_eval_utils, cached, None), "cache_clear"):
            getattr(lm_eval_utils, cached).cache_clear()


def _wait(pid: int, timeout: float, args: list[str]) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise Timeout(args, timeout)
        time.sleep(0.02)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
