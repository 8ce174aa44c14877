"""The options a user may set through lm-eval's `--metadata`, validated before use.

`--metadata` is global to a run and is merged with `--model_args`, so every key of ours is
namespaced with `copy_tasks_`; keys without the prefix belong to someone else and are ignored.
An unknown `copy_tasks_` key is an error, so a typo never silently runs the defaults.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PREFIX = "copy_tasks_"
# Set per task in the YAML `dataset_kwargs`, never by the user.
TASK_KEYS = ("copy_tasks_family", "copy_tasks_length", "copy_tasks_variant")


class Recorded:
    """The keys copy-tasks records in a task's metadata (and so in the results file, under
    `configs.<task>.metadata`), never set by the user; a task built again from its own config
    finds them there and passes them over. Written by `copy_tasks.harness.task` (and
    `copy_tasks.report.rescore`), read by `copy_tasks.report.rows`."""

    VERSION = "copy_tasks_version"  # of the package
    DOCS_SHA256 = "copy_tasks_docs_sha256"  # the docs' fingerprint
    MODEL_SOURCE = "copy_tasks_model_source"  # the PyPI source of a prepared model
    MODEL_TYPE = "copy_tasks_model_type"  # the model config's model_type
    POSITIONS = "copy_tasks_positions"  # a transformer's position scheme, where its config says it
    STATE_BITS = "copy_tasks_state_bits"  # what the model keeps that does not grow (`harness.state_size`), or None
    STATE_BITS_PER_TOKEN = "copy_tasks_state_bits_per_token"  # what grows, per prompt token, or None
    ARCHITECTURE = "copy_tasks_architecture"  # the label that follows from them (`state_size.architecture_label`)
    BATCH_ONE = "copy_tasks_batch_one"  # why the run went at batch 1 (`harness.batch_invariance`), or None
    OVERFLOW_DOCS = "copy_tasks_overflow_docs"  # docs that did not fit, or "unknown"
    CONTEXT_TOKENS = "copy_tasks_context_tokens"
    CONTEXT_SOURCE = "copy_tasks_context_source"
    # the prompts sent, in the backend's own tokens (None where it has no tokenizer we can use)
    PROMPT_TOKENS_MEAN = "copy_tasks_prompt_tokens_mean"
    PROMPT_TOKENS_MAX = "copy_tasks_prompt_tokens_max"
    GENERATION_BUDGETS = "copy_tasks_generation_budgets"  # the budgets really sent
    PROMPT_FORMAT = "copy_tasks_prompt_format"  # "plain", or "chat" under a chat template
    SYSTEM_INSTRUCTION_SENT = "copy_tasks_system_instruction_sent"  # in every prompt sent, or dropped
    LIMIT = "copy_tasks_limit"  # lm-eval's --limit, as this task took it
    SAMPLES = "copy_tasks_samples"  # the doc indices --samples chose
    RESCORED_FROM = "copy_tasks_rescored_from"  # the task version a rescored run was made under
    # written afterwards into runs scored before these were recorded: where they came from
    MEMORY_MEASURED = "copy_tasks_memory_measured"  # `experiments.memory_afterwards`
    PROMPT_TOKENS_COUNTED = "copy_tasks_prompt_tokens_counted"  # `experiments.prompt_tokens_afterwards`


RECORDED_KEYS = tuple(value for name, value in vars(Recorded).items() if name.isupper())


class UserError(Exception):
    """Something the user asked for cannot be done; the message says what and how to fix it.
    Our command-line entry points print it in one line, without a traceback."""


@contextmanager
def one_line_errors(program: str, exit_codes: Mapping[type[Exception], int]):
    """Inside, an exception of a kind in `exit_codes` becomes one line on stderr,
    `<program>: error: <message>`, and that kind's exit status (the first kind it is)."""
    try:
        yield
    except tuple(exit_codes) as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        raise SystemExit(next(code for kind, code in exit_codes.items() if isinstance(error, kind))) from None


class OptionError(UserError, ValueError):
    """A bad value for one of our options; the message names key, value and what is allowed."""


@dataclass(frozen=True)
class IntOption:
    """An integer option within [minimum, maximum]; `argument` is its name in Python."""

    key: str
    argument: str
    meaning: str
    default: int | None
    minimum: int
    maximum: int | None = None

    def parse(self, value: Any) -> int:
        """`value` as an int within bounds (from the command line lm-eval may give "+5" as 5.0).

        >>> DOCS.parse("+5"), DOCS.parse(5.0), DOCS.parse(" 7 ")
        (5, 5, 7)
        """
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            value = int(value)
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
            value = int(value)
        too_big = self.maximum is not None and isinstance(value, int) and value > self.maximum
        if isinstance(value, bool) or not isinstance(value, int) or value < self.minimum or too_big:
            allowed = f">= {self.minimum}" if self.maximum is None else f"from {self.minimum} to {self.maximum}"
            raise OptionError(
                f"{self.key}={value!r} is not allowed: {self.meaning} must be an integer {allowed}."
            )
        return value


@dataclass(frozen=True)
class ChoiceOption:
    """A string option with a fixed set of values."""

    key: str
    argument: str
    meaning: str
    default: str
    choices: tuple[str, ...]

    def parse(self, value: Any) -> str:
        if value not in self.choices:
            raise OptionError(
                f"{self.key}={value!r} is not allowed: {self.meaning} must be one of "
                f"{', '.join(self.choices)}."
            )
        return value


@dataclass(frozen=True)
class SourceOption:
    """A data source: the default name, another name it knows (`named`), or a path that must exist."""

    key: str
    argument: str
    meaning: str
    default: str
    accepted: str  # what a path may be, for the message
    load: Callable[[str], object]  # reads the source; raises a UserError saying how to fix it
    # (source, longest length asked for) -> None, or a UserError if the source cannot serve it
    serves: Callable[[str, int], None] | None = None
    named: tuple[str, ...] = ()  # sources known by name besides the default (read without a path)

    def parse(self, value: Any) -> str:
        if value == self.default or value in self.named:
            return value
        if not isinstance(value, str) or not Path(value).expanduser().exists():
            names = " or ".join((self.default, *self.named))
            raise OptionError(
                f"{self.key}={value!r} is not allowed: {self.meaning} must be {names} or an "
                f"existing path ({self.accepted})."
            )
        return str(Path(value).expanduser().resolve())

    def check(self, value: str, longest: int) -> None:
        """Read the source and check it can serve lengths up to `longest`, before any model loads."""
        self.load(value)
        if self.serves is not None:
            self.serves(value, longest)


Option = IntOption | ChoiceOption | SourceOption

SEED = IntOption("copy_tasks_seed", "seed", "the data seed", default=1234, minimum=0, maximum=2**63 - 1)
# 10,000 docs give a standard error under half a point; far more only fills memory.
DOCS = IntOption("copy_tasks_docs", "docs", "the number of docs per task", default=None, minimum=1, maximum=10_000)


def check_keys(metadata: Mapping[str, Any], known: Mapping[str, Option]) -> None:
    """Reject `copy_tasks_` keys that are not `known` options, naming the reserved ones."""
    for key in metadata:
        if key in TASK_KEYS or key in RECORDED_KEYS:
            what = "set by each task's YAML" if key in TASK_KEYS else "recorded by copy-tasks in the results"
            raise OptionError(f"{key}={metadata[key]!r} is not an option: it is {what}. copy-tasks accepts "
                              f"{', '.join(sorted(known))} in --metadata.")
        if key.startswith(PREFIX) and key not in known:
            raise OptionError(
                f"unknown option {key}={metadata[key]!r}: copy-tasks accepts "
                f"{', '.join(sorted(known))} in --metadata."
            )


def parse_present(metadata: Mapping[str, Any], known: Mapping[str, Option]) -> dict[str, Any]:
    """Check every key and parse every `known` option that `metadata` sets, by key.

    >>> parse_present({"copy_tasks_seed": "7", "pretrained": "gpt2"}, {SEED.key: SEED})
    {'copy_tasks_seed': 7}
    """
    check_keys(metadata, known)
    return {key: option.parse(metadata[key]) for key, option in known.items() if key in metadata}
