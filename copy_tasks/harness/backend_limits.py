"""What the backend that runs a task keeps of a prompt, read from the live lm-eval model.

lm-eval cuts an over-long context from the left, with at most a log line, and the cut depends
on the backend: its tokenizer, its context (`max_length`, vLLM's `max_model_len`, an API
model's `max_length`), and for generation the budget it keeps free. A recall probe scored on a
cut prompt is a silent zero, so our tasks count every request's context as the backend that
runs it will encode it (chat template included: the task counts the context lm-eval built),
against the context that backend keeps. The registration hook hands each task the model object
before lm-eval builds its requests (`copy_tasks.harness.registration`), from the CLI and from Python.

Every backend keeps max_length - max_gen_toks tokens of a generation's context (and `hf`
refuses a request whose max_gen_toks is not below max_length), so a generation's budget is
fitted to the room its prompt leaves (`fit_generation`); of a scored context plus continuation
it keeps the last
- max_length + 1 tokens: `hf`, `hf_fast`, `mamba_ssm` (an `hf` subclass);
- max_length - 1 tokens: `vllm` (`max_model_len`), and any other model with `tok_encode` and
  `max_length` (the strictest rule, assumed);
- max_length - 1 tokens of its `max_length` (2048 unless given): API models
  (`local-completions`, `local-chat-completions`, `openai-completions`, ...) with tokenized
  requests (a tokenizer backend, the default); with `tokenized_requests=False` or no tokenizer
  lm-eval sends text, and the server's context cannot be seen: unknown.
- the reference and scripted models read any length: nothing overflows.
- anything else: unknown. Unknown is never reported as 0: the overflow metric is NaN, the
  results' metadata says `unknown`, and one warning says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from copy_tasks.harness.lm_eval_internals import unwrap_model
from copy_tasks.probes.budgets import OVERFLOW_BUDGET, fitted_budget

log = logging.getLogger("copy_tasks")

UNBOUNDED_MARKER = "copy_tasks_reads_any_length"  # class attribute of models without a context


@dataclass(frozen=True)
class BackendLimits:
    """How a backend counts tokens and how many it keeps of a generation's context plus budget
    (`context`) and of a scored context plus continuation (`scored_context`); `unknown` says
    why they cannot be known. `context` None with `unknown` None: no limit."""

    count: Callable[[str], int] | None
    context: int | None
    source: str
    unknown: str | None = None
    scored_context: int | None = None  # default: `context`

    def tokens(self, text: str) -> int | None:
        """The length of a prompt in the backend's tokens, or None where it cannot be counted.

        >>> BackendLimits(lambda text: len(text.split()), 10, "").tokens("a b c")
        3
        >>> BackendLimits(None, None, "").tokens("a") is None
        True
        """
        return None if self.count is None or self.unknown is not None else self.count(text)

    def overflows(self, context_text: str, continuation: str) -> float:
        """1.0 if the backend cuts this scored request (context and continuation exceed what
        it keeps), 0.0 if not, NaN if that cannot be known.

        >>> words = BackendLimits(lambda text: len(text.split()), 10, "a test", scored_context=11)
        >>> words.overflows("a b c", " d e f g h i j k"), words.overflows("a b c", " d e f g h i j k l")
        (0.0, 1.0)
        >>> BackendLimits(None, None, "", unknown="no tokenizer").overflows("a", " b")
        nan
        """
        if self.unknown is not None:
            return float("nan")
        if self.context is None:
            return 0.0
        return float(self.count(context_text + continuation) > (self.scored_context or self.context))

    def fit_generation(self, context_text: str, answers, generous: int) -> tuple[int, float]:
        """(budget, overflow) of a generation whose prompt is `context_text` and whose longest
        accepted answer is one of `answers`: the `generous` budget fitted to the room the
        prompt leaves (`copy_tasks.probes.budgets.fitted_budget`), or `OVERFLOW_BUDGET` and
        overflow 1.0 when the answer does not fit; `generous` and NaN when that is unknown.
        Answers are counted in context, as the model would write them after the prompt.

        >>> words = BackendLimits(lambda text: len(text.split()), 20, "a test")
        >>> words.fit_generation("a b c d e f g h i j", [" k l m"], generous=50)  # 10 tokens of room
        (10, 0.0)
        >>> words.fit_generation("a b c d e f g h i j k l m n o p", [" q r s"], generous=50)
        (1, 1.0)
        >>> BackendLimits(None, None, "", unknown="no tokenizer").fit_generation("a", [" b"], 50)
        (50, nan)
        """
        if self.unknown is not None:
            return generous, float("nan")
        if self.context is None:
            return generous, 0.0
        prompt = self.count(context_text)
        answer = max(self.count(context_text + text) for text in answers) - prompt
        budget = fitted_budget(generous, self.context - prompt, answer)
        return (OVERFLOW_BUDGET, 1.0) if budget is None else (budget, 0.0)


def _is(lm, class_name: str) -> bool:
    return any(cls.__name__ == class_name for cls in type(lm).__mro__)


def backend_limits(lm) -> BackendLimits:
    """The limits of a live lm-eval model object (see the module docstring)."""
    lm = unwrap_model(lm)
    name = type(lm).__name__
    if getattr(lm, UNBOUNDED_MARKER, False):  # counted in its own units where it has them (ngram_copier: bytes)
        return BackendLimits(getattr(lm, "prompt_units", None), None, f"{name} reads any length")
    if hasattr(lm, "tokenized_requests"):  # lm-eval's API models (TemplateAPI)
        if not lm.tokenized_requests or getattr(lm, "tokenizer", None) is None:
            return BackendLimits(None, None, name, unknown=(
                f"{name} sends prompts as text (no tokenizer, or tokenized_requests=False), so the "
                "server's context cannot be seen; pass tokenizer=<its HF tokenizer> and "
                "max_length=<the server's context> in --model_args to have lm-eval count and cut "
                "prompts itself, and copy-tasks report any that do not fit"))
        add_bos = bool(getattr(lm, "add_bos_token", False))
        return BackendLimits(lambda text: len(lm.tok_encode(text, add_special_tokens=add_bos)), int(lm.max_length),
                             f"{name}'s max_length")
    if callable(getattr(lm, "tok_encode", None)) and hasattr(lm, "max_length"):
        try:
            context = int(lm.max_length)
        except Exception as error:  # a backend property that could not resolve its context
            return BackendLimits(None, None, name, unknown=f"{name}'s max_length could not be read ({error})")
        scored = context + 1 if _is(lm, "HFLM") else context - 1
        return BackendLimits(lambda text: len(lm.tok_encode(text)), context, f"{name}'s max_length",
                             scored_context=scored)
    return BackendLimits(None, None, name, unknown=(
        f"the model object ({name}) has no tok_encode and max_length, so copy-tasks cannot tell "
        "which prompts it cuts"))


_WARNED: set[str] = set()


def warn_once(message: str) -> None:
    """Log a warning once per process."""
    if message not in _WARNED:
        _WARNED.add(message)
        log.warning("copy-tasks: %s", message)
