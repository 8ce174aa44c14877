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


_POPEN = subprocess.Popen  # the real one, for every other command


class ForkedPopen:
    """`subprocess.Popen` for `python -m copy_tasks ...` (what the experiments launch, see
    `copy_tasks.experiments.lm_eval_runner`), run in a fork as `run_forked` runs a command, its
    output to the `stdout` and `stderr` given (None: this process's; `subprocess.STDOUT`: with
    stdout); every other command starts as `subprocess.Popen` starts it. Patched over
    `subprocess.Popen`, it keeps a run of many lm-eval children to seconds.

    >>> with tempfile.TemporaryFile() as out:
    ...     child = ForkedPopen([sys.executable, "-m", "copy_tasks", "list"], stdout=out)
    ...     code, _ = child.wait(), out.seek(0)
    ...     listed = out.read().decode()
    >>> code, "phonebook_copy" in listed
    (0, True)
    >>> other = ForkedPopen(["true"]); type(other) is subprocess.Popen, other.wait()
    (True, 0)
    """

    def __new__(cls, args, *rest, **keywords):
        if list(args[:3]) != [sys.executable, "-m", "copy_tasks"]:
            return _POPEN(args, *rest, **keywords)
        return super().__new__(cls)

    def __init__(self, args, cwd=None, env=None, stdout=None, stderr=None, **_):
        out = 1 if stdout is None else stdout.fileno()
        err = out if stderr == subprocess.STDOUT else 2 if stderr is None else stderr.fileno()
        self.args, self.returncode = args, None
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            _run_child(ENTRY_POINTS["copy-tasks"], ["copy-tasks", *args[3:]], Path(cwd or os.getcwd()),
                       dict(env or os.environ), out, err)

    def wait(self, timeout: float | None = None) -> int:
        """The exit code; past `timeout` a `subprocess.TimeoutExpired`, the child left running."""
        if self.returncode is None:
            self.returncode = _wait(self.pid, float("inf") if timeout is None else timeout, self.args, kill=False)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, 9)

    def __enter__(self):
        return self

    def __exit__(self, *exception) -> None:
        self.wait()


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


def _wait(pid: int, timeout: float, args: list[str], kill: bool = True) -> int:
    """The child's exit code; past `timeout` a `Timeout`, the child killed first (with `kill`)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            if kill:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            raise Timeout(args, timeout)
        time.sleep(0.02)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
