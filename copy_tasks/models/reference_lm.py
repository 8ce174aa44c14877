"""The reference models as lm-eval models: `ngram_copier` and `bounded_state`.

Importing this module registers them in lm-eval's model registry; `copy-tasks run` imports
it, so `copy-tasks run --model ngram_copier --tasks copy_tasks_offline` works. Bare `lm_eval`
cannot load models from another package (lm-eval 0.4 has no model plugins): use
`copy-tasks run`, or in Python `import copy_tasks.models.reference_lm` before
`lm_eval.simple_evaluate(model="ngram_copier", ...)`.

Model args of `ngram_copier`: `unit` (`char` or `word`, default `char`) and `n` (set: the
n-gram lookup of the paper's Theorem 2.3 over the last n units; unset: the longest-match
variant, see `copy_tasks.models.ngram_copier`). Of `bounded_state`: `bits` (B, at least 52: `MIN_BITS`);
it reads key-value lines (`mqar`) with `copy_tasks.models.bounded_pairs`, passkey prompts with
`copy_tasks.models.bounded_number`, the rest with `copy_tasks.models.bounded_state`.
"""

from __future__ import annotations

from functools import lru_cache

import lm_eval.models  # noqa: F401  lm-eval registers its own models only into an empty registry
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from copy_tasks.models.answers import cut_at_stops, score_against
from copy_tasks.models.bounded_number import PasskeyReader, reads_as_passkey
from copy_tasks.models.bounded_pairs import PairsReader, reads_as_pairs
from copy_tasks.models.bounded_state import BoundedStateReader
from copy_tasks.models.ngram_copier import NgramCopier


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

    def __init__(self, unit: str = "char", n: int | str | None = None, **_ignored) -> None:
        super().__init__()
        self.unit = unit
        self.n = None if n in (None, "", "none", "None") else int(n)
        NgramCopier("", unit=self.unit, n=self.n)  # validate the args before any task runs

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        return _copier(prompt, self.unit, self.n).generate(until, budget)

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        return _copier(prompt, self.unit, self.n).score(continuation)


@register_model("bounded_state")
class BoundedStateLM(ReferenceLM):
    """`BoundedStateReader` as an lm-eval model. Model arg: `bits` (B, default 256)."""

    def __init__(self, bits: int | str = 256, **_ignored) -> None:
        super().__init__()
        self.bits = int(bits)
        BoundedStateReader(self.bits)  # validate the args before any task runs

    @property
    def state_bits(self) -> int:
        """Its state's size, as the results record it (`copy_tasks.harness.state_size`)."""
        return self.bits

    def _answer(self, prompt: str) -> str:
        reader = PairsReader if reads_as_pairs(prompt) else PasskeyReader if reads_as_passkey(prompt) \
            else BoundedStateReader
        return reader(self.bits).read(prompt).answer()

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        return cut_at_stops(self._answer(prompt), until)

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        return score_against(self._answer(prompt), continuation)
