"""The reference models as lm-eval models: `ngram_copier` and `bounded_state`.

Importing this module registers them in lm-eval's model registry; `copy-tasks run` imports
it, so `copy-tasks run --model ngram_copier --tasks copy_tasks_offline` works. Bare `lm_eval`
cannot load models from another package (lm-eval 0.4 has no model plugins): use
`copy-tasks run`, or in Python `import copy_tasks.reference_lm` before
`lm_eval.simple_evaluate(model="ngram_copier", ...)`.

Model args of `ngram_copier`: `unit` (`char` or `word`, default `char`) and `n` (units of context
the copier matches; default: as long a suffix as needed). Of `bounded_state`: `bits` (B).
"""

from __future__ import annotations

from functools import lru_cache

import lm_eval.models  # noqa: F401  lm-eval registers its own models only into an empty registry
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from copy_tasks.answers import cut_at_stops, score_against
from copy_tasks.bounded_state import BoundedStateReader
from copy_tasks.ngram_copier import NgramCopier


def stops(gen_kwargs: dict) -> list[str]:
    until = gen_kwargs.get("until") or []
    return [until] if isinstance(until, str) else list(until)


@lru_cache(maxsize=256)
def _copier(prompt: str, unit: str, n: int | None) -> NgramCopier:
    return NgramCopier(prompt, unit=unit, n=n)


@register_model("ngram_copier")
class NgramCopierLM(LM):
    """lm-eval wrapper of `NgramCopier`: generation and loglikelihood requests."""

    def __init__(self, unit: str = "char", n: int | str | None = None, **_ignored) -> None:
        super().__init__()
        self.unit = unit
        self.n = None if n in (None, "", "none", "None") else int(n)
        NgramCopier("", unit=self.unit, n=self.n)  # validate the args before any task runs

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        return [_copier(context, self.unit, self.n).score(continuation) for context, continuation in
                (request.args for request in requests)]

    def loglikelihood_rolling(self, requests) -> list[float]:
        raise NotImplementedError("ngram_copier scores continuations of a prompt, not whole texts")

    def generate_until(self, requests) -> list[str]:
        outputs = []
        for request in requests:
            context, gen_kwargs = request.args[0], request.args[1]
            budget = int(gen_kwargs.get("max_gen_toks", 256))
            outputs.append(_copier(context, self.unit, self.n).generate(stops(gen_kwargs), budget))
        return outputs


@register_model("bounded_state")
class BoundedStateLM(LM):
    """lm-eval wrapper of `BoundedStateReader`. Model arg: `bits` (B, default 256)."""

    def __init__(self, bits: int | str = 256, **_ignored) -> None:
        super().__init__()
        self.bits = int(bits)
        BoundedStateReader(self.bits)  # validate the args before any task runs

    def _answer(self, prompt: str) -> str:
        return BoundedStateReader(self.bits).read(prompt).answer(prompt)

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        return [score_against(self._answer(context), continuation)
                for context, continuation in (request.args for request in requests)]

    def loglikelihood_rolling(self, requests) -> list[float]:
        raise NotImplementedError("bounded_state scores continuations of a prompt, not whole texts")

    def generate_until(self, requests) -> list[str]:
        outputs = []
        for request in requests:
            context, gen_kwargs = request.args[0], request.args[1]
            outputs.append(cut_at_stops(self._answer(context), stops(gen_kwargs)))
        return outputs
