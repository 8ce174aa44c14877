"""How long the rest of a run's requests will take, from what the ones done cost.

lm-eval answers a run's requests of one kind in an order of its own (`answer_order`): the
loglikelihood requests longest first, the generated ones in groups of equal generation settings
(stop sequences and budget), the groups as they first come, each longest first. A run's first
requests are often its costliest, so an estimate from their count alone (tqdm's, which lm-eval's
bar shows) was far off: "about 491 min more" with 5 minutes left. Here each request of our tasks
gets a relative cost from its doc, the characters of its prompt and, for a generated answer,
`DECODE_WEIGHT` times the characters of its answer (a token decoded is a forward pass of its
own, a prompt's tokens share one); the time left is the time spent so far scaled by what is
left of the cost, the requests taken in lm-eval's order:

    >>> costs = RequestCosts({"loglikelihood": (400.0, 300.0, 200.0, 100.0)})
    >>> costs.seconds_left("loglikelihood", done=1, elapsed=40.0)   # 400 of 1,000 took 40 s
    60.0
    >>> costs.seconds_left("generate_until", done=1, elapsed=40.0) is None   # no costs known
    True

`benchmarks/bench_progress_estimate.py` holds the estimate against the time a run of the main
job really took.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

GENERATE, LOGLIKELIHOOD = "generate_until", "loglikelihood"
# A generated answer's character against a prompt's: decoding a token is a forward pass of the
# batch (Gemma 3 270M on 2 cores: about 10 a second at batch 8), while a prompt's tokens go
# through in one pass, about 1,000 a second (benchmarks/bench_progress_estimate.py).
DECODE_WEIGHT = 20.0


@dataclass(frozen=True)
class RequestCosts:
    """The relative cost of each request of a run, by kind, in the order lm-eval answers them."""

    by_kind: Mapping[str, tuple[float, ...]]

    def seconds_left(self, kind: str, done: int, elapsed: float) -> float | None:
        """The seconds the requests of `kind` after the first `done` will take, if the first took
        `elapsed`; None where the costs are not known or nothing is done yet."""
        costs = self.by_kind.get(kind)
        if not costs or done <= 0 or done > len(costs):
            return None
        spent = sum(costs[:done])
        return elapsed * (sum(costs) - spent) / spent if spent else None


def local_data(family, metadata: Mapping[str, Any]) -> bool:
    """Whether a family's docs can be drawn here without a download: generated, or from a source
    the run names (`copy_tasks_text_source=wikipedia`, a local file).

    >>> from copy_tasks.probes.families import FAMILIES
    >>> [local_data(FAMILIES["c4_copy"], metadata) for metadata in ({}, {"copy_tasks_text_source": "wikipedia"})]
    [False, True]
    """
    from copy_tasks.probes.options import SourceOption

    return not family.needs_download or any(option.key in metadata for option in family.options
                                            if isinstance(option, SourceOption))


def request_costs(tasks: Iterable[str], metadata: Mapping[str, Any]) -> RequestCosts:
    """The costs of every request of our tasks among `tasks`, their docs drawn as the tasks draw
    them; a kind any task not ours asks for gets no costs (its requests' cost is unknown).

    >>> costs = request_costs(["random_copy_10", "random_copy_tf_20"], {"copy_tasks_docs": 2})
    >>> [len(costs.by_kind[kind]) for kind in (GENERATE, LOGLIKELIHOOD)]
    [2, 2]
    """
    from copy_tasks.probes.families import FAMILIES, parse_task_name
    from copy_tasks.probes.family import GENERATION
    from copy_tasks.probes.task_docs import task_rows

    found: dict[str, list[tuple]] = {GENERATE: [], LOGLIKELIHOOD: []}
    unknown: set[str] = set()
    for task in tasks:
        parsed = parse_task_name(task)
        if parsed is None or not local_data(FAMILIES[parsed[0]], metadata):
            unknown |= {GENERATE, LOGLIKELIHOOD}  # not ours, or data from a hub this process may not reach
            continue
        family, variant, length = parsed
        kind = GENERATE if variant == GENERATION else LOGLIKELIHOOD
        for doc in task_rows(family, length, variant, metadata):
            for question in FAMILIES[family].request_docs(doc):
                prompt, answer = len(question["prompt"]), len(question["continuation"])
                settings = (FAMILIES[family].stop_sequences, doc["generation_budget"]) if kind == GENERATE else ()
                found[kind].append((settings, prompt, prompt + answer * (DECODE_WEIGHT if kind == GENERATE else 1.0)))
    return RequestCosts({kind: answer_order(requests) for kind, requests in found.items()
                         if requests and kind not in unknown})


def answer_order(requests: list[tuple]) -> tuple[float, ...]:
    """The costs of (settings, prompt length, cost) requests in the order lm-eval answers them:
    in groups of equal settings (generation: stop sequences and budget; loglikelihood: one group),
    the groups in the order they first come, each longest prompt first.

    >>> answer_order([("a", 10, 1.0), ("b", 50, 2.0), ("a", 30, 3.0)])
    (3.0, 1.0, 2.0)
    """
    groups: dict = {}
    for settings, prompt, cost in requests:
        groups.setdefault(settings, []).append((prompt, cost))
    return tuple(cost for group in groups.values() for _, cost in sorted(group, key=lambda pair: -pair[0]))
