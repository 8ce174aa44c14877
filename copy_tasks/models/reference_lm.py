"""The reference models as lm-eval models: `ngram_copier` and `bounded_state`.

Importing this module registers them in lm-eval's model registry; `copy-tasks run` imports
it, so `copy-tasks run --model ngram_copier --tasks copy_tasks_offline` works. Bare `lm_eval`
cannot load models from another package (lm-eval 0.4 has no model plugins): use
`copy-tasks run`, or in Python `import copy_tasks.models.reference_lm` before
`lm_eval.simple_evaluate(model="ngram_copier", ...)`.

Model args of `ngram_copier`: `unit` (`char` or `word`, default `char`) and `n` (set: the
n-gram lookup of the paper's Theorem 2.3 over the last n units; unset: the longest-match
variant, see `copy_tasks.models.ngram_copier`). Of `bounded_state`: `bits` (B, at least 52:
`MIN_BITS`); it reads key-value lines (`mqar`) with `copy_tasks.models.bounded_pairs`, passkey
prompts with `copy_tasks.models.bounded_number`, phone books with
`copy_tasks.models.bounded_phonebook`, the rest with `copy_tasks.models.bounded_state`
(`copy_tasks.models.bounded_readers` picks). A bad model arg (`n=2.5`, `bits=abc`, `bits=48`,
or one it does not take: `bit=64`) is a `UserError` naming it, raised as the model is made,
before any doc is drawn. Both write at most `max_gen_toks` units (characters, or the copier's
words).
"""

from __future__ import annotations

import re
from functools import lru_cache

import lm_eval.models  # noqa: F401  lm-eval registers its own models only into an empty registry
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from copy_tasks.harness.model_info import ANALYTIC_MODEL_ARGS
from copy_tasks.models.answers import cut_at_stops, score_against
from copy_tasks.models.bounded_readers import VERSION as READERS_VERSION
from copy_tasks.models.bounded_readers import bounded_state_read
from copy_tasks.models.bounded_state import MIN_BITS
from copy_tasks.models.ngram_copier import NgramCopier
from copy_tasks.probes.options import UserError

_INTEGER = re.compile(r"[+-]?\d+")


def integer_arg(model: str, name: str, value, example: int) -> int:
    """A model arg that must be an integer, as lm-eval hands it over (`n=3` as 3, `n=2.5` as
    2.5, `n=abc` as "abc"); anything else is refused, never rounded.

    >>> integer_arg("ngram_copier", "n", 3, 5), integer_arg("ngram_copier", "n", "-2", 5)
    (3, -2)
    >>> integer_arg("ngram_copier", "n", 2.5, 5)
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --model ngram_copier: n=2.5 is not an integer: give a whole number, e.g. n=5
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not _INTEGER.fullmatch(str(value).strip()):
        raise UserError(f"--model {model}: {name}={value} is not an integer: give a whole number, "
                        f"e.g. {name}={example}")
    return int(value)


def refuse_unknown_args(model: str, unknown: dict) -> None:
    """An analytic model made with arguments it does not take (from Python; a command-line run is
    refused before, by `copy_tasks.harness.cli_checks.check_model_args`).

    >>> refuse_unknown_args("bounded_state", {})
    >>> refuse_unknown_args("bounded_state", {"bit": 64})
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --model bounded_state: it takes no argument bit (it takes bits)
    """
    if unknown:
        takes = ", ".join(ANALYTIC_MODEL_ARGS[model])
        raise UserError(f"--model {model}: it takes no argument {', '.join(unknown)} (it takes {takes})")


@lru_cache(maxsize=256)
def _copier(prompt: str, unit: str, n: int | None) -> NgramCopier:
    return NgramCopier(prompt, unit=unit, n=n)


class ReferenceLM(LM):
    """An analytic model (the reference models, the scripted model): subclasses say how to
    generate and how to score a continuation; this class answers lm-eval's requests."""

    copy_tasks_reads_any_length = True  # no context limit: nothing overflows (backend_limits)
    copy_tasks_analytic = True  # no `pretrained=`: runs are named after the model and its args (model_info)

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        raise NotImplementedError

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        raise NotImplementedError

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        return [self.score(*request.args[:2]) for request in requests]

    def loglikelihood_rolling(self, requests) -> list[float]:
        raise NotImplementedError("analytic models score continuations of a prompt, not whole texts")

    def generate_until(self, requests) -> list[str]:
        outputs = []
        for request in requests:
            prompt, gen_kwargs = request.args[0], request.args[1]
            until = gen_kwargs.get("until") or []
            until = [until] if isinstance(until, str) else list(until)
            outputs.append(self.generate(prompt, until, int(gen_kwargs.get("max_gen_toks", 256))))
        return outputs


@register_model("ngram_copier")
class NgramCopierLM(ReferenceLM):
    """`NgramCopier` as an lm-eval model. Model args: `unit`, `n`."""

    def __init__(self, unit: str = "char", n: int | str | None = None, batch_size=None, max_batch_size=None,
                 device=None, trust_remote_code=None, **unknown) -> None:
        super().__init__()
        refuse_unknown_args("ngram_copier", unknown)
        self.unit = unit
        self.n = None if n in (None, "", "none", "None") else integer_arg("ngram_copier", "n", n, 5)
        try:
            NgramCopier("", unit=self.unit, n=self.n)  # validate the args before any task runs
        except ValueError as error:
            raise UserError(f"--model ngram_copier: {error}") from None

    # What it keeps is the prompt's text itself: on the memory axis, 8 bits a byte of it (UTF-8),
    # its prompts counted in bytes (`prompt_units`), nothing fixed.
    state_bits = 0
    state_bits_per_token = 8

    @staticmethod
    def prompt_units(text: str) -> int:
        """A prompt's length in what its memory grows by: UTF-8 bytes.

        >>> NgramCopierLM.prompt_units("Zoë: 1")
        7
        """
        return len(text.encode("utf-8"))

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        return _copier(prompt, self.unit, self.n).generate(until, budget)

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        return _copier(prompt, self.unit, self.n).score(continuation)


@register_model("bounded_state")
class BoundedStateLM(ReferenceLM):
    """`BoundedStateReader` as an lm-eval model. Model arg: `bits` (B, default 256)."""

    copy_tasks_model_version = READERS_VERSION  # its answers change with it: its response cache's name holds it

    def __init__(self, bits: int | str = 256, batch_size=None, max_batch_size=None, device=None,
                 trust_remote_code=None, **unknown) -> None:
        super().__init__()
        refuse_unknown_args("bounded_state", unknown)
        self.bits = integer_arg("bounded_state", "bits", bits, 256)
        if self.bits < MIN_BITS:  # before any task runs
            raise UserError(f"--model bounded_state: bits={self.bits}: at least {MIN_BITS} bits are needed, the most "
                            "its control registers can take")

    @property
    def state_bits(self) -> int:
        """Its state's size, as the results record it (`copy_tasks.harness.state_size`)."""
        return self.bits

    def get_model_info(self) -> dict:
        """What lm-eval records of the model in the results' `config`: its readers' version, as
        the model's revision (the leaderboard's `model_revision` column, e.g. `v2`)."""
        return {"model_revision": f"v{self.copy_tasks_model_version}"}

    def _answer(self, prompt: str) -> str:
        return bounded_state_read(prompt, self.bits).answer()

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        """Its answer's first `budget` characters, cut before the first stop sequence."""
        return cut_at_stops(self._answer(prompt)[:budget], until)

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        return score_against(self._answer(prompt), continuation)
