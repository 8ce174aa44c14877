"""The options a user may set through lm-eval's `--metadata`, validated before use.

`--metadata` is global to a run and is merged with `--model_args`, so every key of ours is
namespaced with `copy_tasks_`; keys without the prefix belong to someone else and are ignored.
An unknown `copy_tasks_` key is an error, so a typo never silently runs the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "copy_tasks_"
# Set per task in the YAML `dataset_kwargs`, never by the user.
TASK_KEYS = ("copy_tasks_family", "copy_tasks_length", "copy_tasks_variant")


class OptionError(ValueError):
    """A bad value for one of our options; the message names key, value and what is allowed."""


@dataclass(frozen=True)
class IntOption:
    """An integer option with a lower bound."""

    key: str
    minimum: int
    meaning: str

    def parse(self, value: Any) -> int:
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < self.minimum:
            raise OptionError(
                f"{self.key}={value!r} is not allowed: {self.meaning} must be an integer "
                f">= {self.minimum}."
            )
        return value


SEED = IntOption("copy_tasks_seed", 0, "the data seed")
DOCS = IntOption("copy_tasks_docs", 1, "the number of docs per task")
LENGTH = IntOption("copy_tasks_length", 1, "the task length")
USER_OPTIONS = {option.key: option for option in (SEED, DOCS)}


@dataclass(frozen=True)
class RunOptions:
    """The user-settable options of one run."""

    seed: int
    docs: int


def check_keys(metadata: Mapping[str, Any]) -> None:
    """Reject `copy_tasks_` keys that are neither user options nor per-task constants."""
    allowed = set(USER_OPTIONS) | set(TASK_KEYS)
    for key in metadata:
        if key.startswith(PREFIX) and key not in allowed:
            raise OptionError(
                f"unknown option {key}={metadata[key]!r}: copy-tasks accepts "
                f"{', '.join(sorted(USER_OPTIONS))} in --metadata."
            )


def run_options(metadata: Mapping[str, Any], default_docs: int) -> RunOptions:
    """Validate the namespaced keys of a task's merged metadata.

    >>> run_options({"copy_tasks_seed": 7, "pretrained": "gpt2"}, default_docs=200)
    RunOptions(seed=7, docs=200)
    """
    check_keys(metadata)
    seed = SEED.parse(metadata.get(SEED.key, 1234))
    docs = DOCS.parse(metadata.get(DOCS.key, default_docs))
    return RunOptions(seed=seed, docs=docs)
