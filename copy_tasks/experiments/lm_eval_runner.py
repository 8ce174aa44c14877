"""The one way the experiments launch lm-eval: `copy-tasks run` in a subprocess.

`copy-tasks run` is `lm_eval run` with our tasks, our option checks and our models (`hf_fast`,
the reference models) registered. A model a run scores is named in the results by the name it
is loaded under, so models on disk are loaded from a folder of links named after them
(`link_models`): the results then say `gemma-3-270m` or `trained-mamba2`, not a path of the
machine that ran them. The links are relative where the target lies beside the folder, so a
copied or moved run folder scores its own checkpoints. After each run the task YAML paths that
lm-eval records are written relative to the package (`redact_config_paths`).

A run whose output goes to a log starts the log with the command it ran, runnable from any folder
(`rerun_command`), and can show one progress line every `interval` seconds from the log's latest
lm-eval request bar (`progress_line`).

    >>> LmEvalRun("ngram_copier", ("random_copy_10",), Path("out")).command()[3:]
    ['run', '--model', 'ngram_copier', '--tasks', 'random_copy_10', '--output_path', 'out', '--batch_size', '1']
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from copy_tasks.experiments.request_costs import RequestCosts, request_costs
from copy_tasks.report.results import redact_config_paths


@dataclass(frozen=True)
class LmEvalRun:
    """One lm-eval run: backend, tasks, where its results go, and its settings."""

    backend: str
    tasks: tuple[str, ...]
    output: Path
    model_args: str = ""
    metadata: Mapping[str, object] = field(default_factory=dict)
    batch_size: int = 1
    include: Path | None = None  # an --include_path folder of task YAMLs
    chat: bool = False  # --apply_chat_template
    log_samples: bool = False
    device: str | None = None

    def command(self) -> list[str]:
        """The command line of this run."""
        command = [sys.executable, "-m", "copy_tasks", "run", "--model", self.backend,
                   "--tasks", ",".join(self.tasks), "--output_path", str(self.output),
                   "--batch_size", str(self.batch_size)]
        if self.model_args:
            command += ["--model_args", self.model_args]
        if self.device:
            command += ["--device", self.device]
        if self.include is not None:
            command += ["--include_path", str(self.include)]
        if self.metadata:
            command += ["--metadata", json.dumps(dict(self.metadata))]
        if self.log_samples:
            command.append("--log_samples")
        if self.chat:
            command.append("--apply_chat_template")
        return command


class LmEvalFailed(Exception):
    """An lm-eval run ended with an error; the message says which, and where its output is."""


CHILD_ENVIRONMENT = {"TOKENIZERS_PARALLELISM": "false"}


def rerun_command(command: list[str], cwd: Path) -> str:
    """A shell line that runs `command` as `launch` runs it, from any folder: in `cwd` (as an
    absolute path: a model is named relative to it), with the child's environment.

    >>> print(rerun_command(["python", "-m", "copy_tasks", "run", "--metadata", '{"a": 1}'], Path("/runs/by_name")))
    cd /runs/by_name && TOKENIZERS_PARALLELISM=false python -m copy_tasks run --metadata '{"a": 1}'
    """
    settings = " ".join(f"{name}={shlex.quote(value)}" for name, value in CHILD_ENVIRONMENT.items())
    return f"cd {shlex.quote(os.path.abspath(cwd))} && {settings} {shlex.join(command)}"


PROGRESS_INTERVAL = 20.0  # seconds between progress lines: one at least every 30 s while a run lasts
LOG_TAIL = 1 << 16  # bytes of the log read for its latest request bar

# lm-eval's (and hf_fast's) request bars, as tqdm writes them to a file:
# "Running loglikelihood requests:  45%|####5     | 90/200 [00:10<00:12,  8.50it/s]"
REQUEST_BAR = re.compile(r"Running (?P<kind>\w+) requests: *\d+%\|[^|\r\n]*\| *(?P<done>\d+)/(?P<total>\d+) "
                         r"\[(?P<spent>[\d:]+)<(?P<left>[\d:]+|\?)")


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def _tqdm_seconds(text: str) -> int:
    """`"01:02:03"` or `"02:03"` as seconds."""
    seconds = 0
    for part in text.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def progress_line(output: str, elapsed: float, costs: RequestCosts | None = None) -> str:
    """What a run shows of itself: its latest request bar in `output` (requests done of total,
    and an estimate of the time the rest take) and the seconds since it began. The estimate is
    from the costs of the requests done (`costs`, `request_costs`) where they are known, else
    the bar's own (tqdm's, from their count).

    >>> progress_line("Running loglikelihood requests:  45%|####5     | 90/200 [00:10<01:12,  8.50it/s]", 75)
    'loglikelihood requests 90/200, 1 min 15 s elapsed, about 1 min 12 s more for these'
    >>> costs = RequestCosts({"loglikelihood": (3.0,) * 90 + (1.0,) * 110})  # the longest 90 first
    >>> progress_line("Running loglikelihood requests:  45%|####5     | 90/200 [00:27<01:12,  8.50it/s]", 75, costs)
    'loglikelihood requests 90/200, 1 min 15 s elapsed, about 11 s more for these'
    >>> progress_line("Running generate_until requests:   0%|          | 0/48 [00:00<?, ?it/s]", 9.6)
    'generate_until requests 0/48, 10 s elapsed'
    >>> progress_line("Building contexts for random_copy_10 on rank 0...", 31)
    'starting: 31 s elapsed (loading the model, building the tasks)'
    """
    bars = list(REQUEST_BAR.finditer(output))
    if not bars:
        return f"starting: {_duration(elapsed)} elapsed (loading the model, building the tasks)"
    bar = bars[-1]
    line = f"{bar['kind']} requests {bar['done']}/{bar['total']}, {_duration(elapsed)} elapsed"
    left = None if costs is None else costs.seconds_left(bar["kind"], int(bar["done"]), _tqdm_seconds(bar["spent"]))
    if left is None and bar["left"] != "?":
        left = _tqdm_seconds(bar["left"])
    return line if left is None else f"{line}, about {_duration(left)} more for these"


class CostsDrawnAside:
    """A run's request costs (`request_costs`), drawn in a thread of their own while the run
    starts (a long task's docs take seconds to draw): None until they are there, and where they
    cannot be drawn here (the progress line then shows the bar's own estimate)."""

    def __init__(self, run: LmEvalRun):
        import threading

        self._costs: RequestCosts | None = None
        self._thread = threading.Thread(target=self._draw, args=(run,), daemon=True)
        self._thread.start()

    def _draw(self, run: LmEvalRun) -> None:
        try:
            self._costs = request_costs(run.tasks, run.metadata)
        except (OSError, ValueError, KeyError):
            self._costs = None

    @property
    def costs(self) -> RequestCosts | None:
        return self._costs


def _log_tail(log: Path) -> str:
    with log.open("rb") as stream:
        stream.seek(max(0, log.stat().st_size - LOG_TAIL))
        return stream.read().decode(errors="replace")


def _wait(child: subprocess.Popen, log: Path, progress: str | None, interval: float,
          costs: CostsDrawnAside | None = None) -> int:
    """The child's exit status; meanwhile, with `progress`, a line `<progress>: <progress_line>`
    on stderr every `interval` seconds."""
    began = time.monotonic()
    while True:
        try:
            return child.wait(timeout=interval if progress else None)
        except subprocess.TimeoutExpired:
            known = None if costs is None else costs.costs
            print(f"{progress}: {progress_line(_log_tail(log), time.monotonic() - began, known)}",
                  file=sys.stderr, flush=True)


def launch(run: LmEvalRun, cwd: Path, log: Path | None = None, progress: str | None = None,
           interval: float = PROGRESS_INTERVAL) -> None:
    """Run lm-eval in `cwd`, then redact the paths in its results. Its output goes to the
    terminal, or with `log` to that file, after a first line `# <rerun_command>`; then with
    `progress` (a label) a progress line goes to stderr every `interval` seconds. A failed run is
    an `LmEvalFailed` naming the tasks (and the log's last line: the child's traceback stays in
    the log)."""
    environment = {**os.environ, **CHILD_ENVIRONMENT}
    if log is not None:
        if log.is_symlink():  # the log is ours to write: never through a link to someone else's file
            raise LmEvalFailed(f"{log} is a symbolic link: not written through; remove it and run again")
        log.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.nullcontext() if log is None else log.open("w") as output:
        if output is not None:
            output.write(f"# {rerun_command(run.command(), cwd)}\n")
            output.flush()
        with subprocess.Popen(run.command(), cwd=cwd, env=environment, stdout=output,
                              stderr=None if output is None else subprocess.STDOUT) as child:
            try:
                returncode = (child.wait() if log is None
                              else _wait(child, log, progress, interval, CostsDrawnAside(run) if progress else None))
            except BaseException:  # interrupted: the child goes too
                child.kill()
                raise
    if returncode != 0:
        message = f"lm-eval failed (exit {returncode}) running {run.backend} on {','.join(run.tasks)[:200]}"
        if log is not None:
            output_lines = log.read_text(errors="replace").splitlines()[1:]  # after the command
            lines = [line.strip() for line in output_lines if line.strip()]
            message += f": {lines[-1] if lines else 'no output'} (its output: {log})"
        raise LmEvalFailed(message)
    redact_config_paths(run.output, run.include)


def link_models(folder: Path, targets: Mapping[str, Path]) -> None:
    """Links `folder/<name>` -> each target folder (relative where the target is under
    `folder`'s parent), made or replaced, so that lm-eval loads the models by those names."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in targets.items():
        link = folder / name
        target = target.resolve()
        try:
            pointed = Path(os.path.relpath(target, folder.resolve()))
            if pointed.parts[:1] == ("..",) and ".." in pointed.parts[1:]:
                pointed = target  # not beside the folder: keep the absolute path
        except ValueError:  # another drive
            pointed = target
        if link.is_symlink() or link.exists():
            if link.is_symlink() and link.resolve() == target:
                continue
            link.unlink()
        link.symlink_to(pointed, target_is_directory=True)
