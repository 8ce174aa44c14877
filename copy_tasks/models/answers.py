"""How the reference models, which only know their greedy answer, answer lm-eval's requests.

A generation is the answer cut before its first stop sequence. A loglikelihood request is
scored by a stated smoothing rule: each character of the
continuation that agrees with the answer so far gets probability 1 - EPSILON; the first that
disagrees gets EPSILON / 255 (the rest of the byte values share EPSILON); every character
after that gets 1/256 (the model is lost). The continuation is greedy iff it is a prefix of
the answer, which is exactly when generation would have produced it.
"""

from __future__ import annotations

import math

from copy_tasks.probes.public_scorer import cut_at_stops  # noqa: F401  (where the models import it from)

EPSILON = 0.01


def score_against(answer: str, continuation: str) -> tuple[float, bool]:
    """(log-probability, is_greedy) of `continuation` for a model whose answer is `answer`.

    >>> score_against("abc", "ab")[1], score_against("abc", "ax")[1]
    (True, False)
    """
    agree = 0
    while agree < min(len(answer), len(continuation)) and answer[agree] == continuation[agree]:
        agree += 1
    logprob = agree * math.log(1 - EPSILON)
    if agree == len(continuation):
        return logprob, True
    lost = len(continuation) - agree - 1
    return logprob + math.log(EPSILON / 255) + lost * math.log(1 / 256), False
