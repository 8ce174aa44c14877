"""The one way the experiments launch lm-eval: `copy-tasks run` in a subprocess.

`copy-tasks run` is `lm_eval run` with our tasks, our option checks and our models (`hf_fast`,
the reference models) registered. A model a run scores is named in the results by the name it
is loaded under, so models on disk are loaded from a folder of links named after them
(`link_models`): the results then say `gemma-3-270m` or `trained-mamba2`, not a path of the
machine that ran them. The links are relative where the target lies beside the folder, so a
copied or moved run folder scores its own checkpoints. After each run the task YAML paths that
lm-eval records are written relative to the package (`redact_config_paths`).

    >>> LmEvalRun("ngram_copier", ("random_copy_10",), Path("out")).command()[3:]
    ['run', '--model', 'ngram_copier', '--tasks', 'random_copy_10', '--output_path', 'out', '--batch_size', '1']
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

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


def launch(run: LmEvalRun, cwd: Path, log: Path | None = None) -> None:
    """Run lm-eval, then redact the paths in its results. Its output goes to the terminal, or
    with `log` to that file; a failed run is an `LmEvalFailed` naming the tasks (and the log's
    last line: the child's traceback stays in the log)."""
    environment = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    if log is not None:
        if log.is_symlink():  # the log is ours to write: never through a link to someone else's file
            raise LmEvalFailed(f"{log} is a symbolic link: not written through; remove it and run again")
        log.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.nullcontext() if log is None else log.open("w") as output:
        result = subprocess.run(run.command(), cwd=cwd, env=environment, stdout=output,
                                stderr=None if output is None else subprocess.STDOUT)
    if result.returncode != 0:
        message = f"lm-eval failed (exit {result.returncode}) running {run.backend} on {','.join(run.tasks)[:200]}"
        if log is not None:
            lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
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
