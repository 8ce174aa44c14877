"""What a run costs: prompt tokens and seconds per doc at each length, on a real model on this machine.

For each headline family (the phone book, random strings, the prefix-key lookup) at every
length, through lm-eval's `hf` backend at batch 1 on Gemma 3 270M: the prompt's tokens in the
model's tokenizer (the mean the task itself records, `copy_tasks_prompt_tokens_mean`), the
answer's tokens (the target's), and the model's seconds per doc (time inside its request
methods) for the generation and the teacher-forced task, measured at lengths up to
`--max-measured`; above it only the tokens are counted (the model is not called: a 1,000-entry
phone book took 655 s to generate on 2 cores). Then one GPU's estimate per doc, from the tokens
and two stated rates (not a measurement: no GPU ran this). Then the `copy_tasks_cpu` group,
every task measured on `--docs` docs: its seconds per doc summed, and what the group costs at
`--limit` docs per task.

    python benchmarks/bench_costs.py                     # about 15 minutes on 2 CPU cores
    python benchmarks/bench_costs.py --max-measured 50 --no-group
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from copy_tasks.probes.families import FAMILIES, UMBRELLA_GROUPS
from copy_tasks.probes.options import Recorded

HEADLINE = ("phonebook_copy", "random_copy", "lookup_prefix")
# One GPU's rates for a 270M model at batch 1 under HF transformers (assumed, not measured):
# decoding is bound by kernel launches, about 25 ms a token for an 18-layer model; prefill runs
# at tens of thousands of tokens a second.
GPU_DECODE_S_PER_TOKEN = 0.025
GPU_PREFILL_TOKENS_PER_S = 50_000


class ModelClock:
    """Seconds the model spends answering requests; with `counting_only` set it answers without
    calling the model (the task still counts its prompts' tokens as it builds them)."""

    def __init__(self, lm) -> None:
        self.seconds = 0.0
        self.counting_only = False
        self.answers = {"generate_until": lm.generate_until, "loglikelihood": lm.loglikelihood}
        lm.generate_until = lambda requests, *a, **k: self._answer("generate_until", [""] * len(requests), requests)
        lm.loglikelihood = lambda requests, *a, **k: self._answer("loglikelihood", [(0.0, False)] * len(requests),
                                                                   requests)

    def _answer(self, method: str, blank: list, requests):
        if self.counting_only:
            return blank
        start = time.perf_counter()
        try:
            return self.answers[method](requests)
        finally:
            self.seconds += time.perf_counter() - start


def run_task(lm, clock: ModelClock, task: str, manager, docs: int) -> dict:
    """One task on `docs` docs: the model's seconds per doc (None when only counting), the
    prompt tokens the task recorded, and the answer's tokens."""
    import lm_eval

    before = clock.seconds
    out = lm_eval.simple_evaluate(model=lm, tasks=[task], task_manager=manager, limit=docs, log_samples=True)
    samples = out["samples"][task]
    metadata = out["configs"][task]["metadata"]
    answers = [len(lm.tok_encode(str(sample["target"]))) for sample in samples]
    return {"s_per_doc": None if clock.counting_only else (clock.seconds - before) / len(samples),
            "prompt_tokens": metadata.get(Recorded.PROMPT_TOKENS_MEAN), "answer_tokens": sum(answers) / len(answers)}


def gpu_estimate(prompt_tokens: float, answer_tokens: float) -> float:
    """Seconds per generated doc on one GPU at the assumed rates.

    >>> round(gpu_estimate(50_000, 40), 2)
    2.0
    """
    return prompt_tokens / GPU_PREFILL_TOKENS_PER_S + answer_tokens * GPU_DECODE_S_PER_TOKEN


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma-3-270m", help="a copy-tasks model name or a model folder")
    parser.add_argument("--docs", type=int, default=1, help="docs per task measured")
    parser.add_argument("--max-measured", type=int, default=200, help="longest length whose seconds are measured")
    parser.add_argument("--limit", type=int, default=10, help="docs per task for the group's cost")
    parser.add_argument("--no-group", action="store_true", help="skip the copy_tasks_cpu group")
    args = parser.parse_args(argv)

    from lm_eval.models.huggingface import HFLM

    from copy_tasks import task_manager
    from copy_tasks.experiments.real_models import MODELS, prepare

    folder = prepare(args.model) if args.model in MODELS else Path(args.model)
    lm = HFLM(pretrained=str(folder), device="cpu", batch_size=1)
    clock = ModelClock(lm)
    manager = task_manager(metadata={"pretrained": str(folder)})
    print(f"## What a run costs: {folder.name}, lm-eval `hf` at batch 1 on this machine, {args.docs} doc(s) a task")
    print("| family | length | prompt tokens | answer tokens | generation s/doc | teacher-forced s/doc "
          "| one GPU s/doc (estimate) |")
    print("|---|---|---|---|---|---|---|")
    for name in HEADLINE:
        family = FAMILIES[name]
        for length in family.lengths:
            clock.counting_only = length > args.max_measured
            generation = run_task(lm, clock, family.task_name(length), manager, args.docs)
            forced = run_task(lm, clock, family.task_name(length, teacher_forced=True), manager, args.docs)
            estimate = gpu_estimate(generation["prompt_tokens"], generation["answer_tokens"])
            print(f"| {name} | {length} {family.unit} | {generation['prompt_tokens']:,.0f} | "
                  f"{generation['answer_tokens']:.0f} | {seconds(generation['s_per_doc'])} | "
                  f"{seconds(forced['s_per_doc'])} | {estimate:.2f} |", flush=True)
    print(f"GPU estimate: prompt tokens / {GPU_PREFILL_TOKENS_PER_S:,} per s + answer tokens x "
          f"{GPU_DECODE_S_PER_TOKEN * 1000:.0f} ms (assumed rates for HF generate at batch 1; not measured)")
    if args.no_group:
        return
    group = UMBRELLA_GROUPS["copy_tasks_cpu"]
    clock.counting_only = False
    total, tasks = 0.0, 0
    for family in FAMILIES.values():
        for teacher_forced in (False, True):
            for length in group.lengths(family):
                total += run_task(lm, clock, family.task_name(length, teacher_forced), manager, args.docs)["s_per_doc"]
                tasks += 1
    print(f"copy_tasks_cpu: {tasks} tasks, {total:.0f} s for one doc of each on this machine; "
          f"with --limit {args.limit}: about {total * args.limit / 3600:.1f} h")


if __name__ == "__main__":
    import logging

    for noisy in ("lm_eval", "copy_tasks"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    main()
