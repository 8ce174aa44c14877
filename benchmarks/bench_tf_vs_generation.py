"""Teacher-forced against generation on a real model: seconds per doc and verdict agreement.

For each family and length, the same docs are scored by the generation task (greedy decoding,
the paper's protocol) and by the teacher-forced task (one loglikelihood request), through
lm-eval, on two backends: lm-eval's `hf`, and our `hf_fast` (logits only at the continuation's
positions, and banded attention for sliding-window layers; `copy_tasks/fast_hf.py`). Prints
the model's seconds per doc (time inside the model's request methods) side by side, the
ratio generation / teacher-forced on each backend, and how often the verdicts (exact match) of
generation and teacher forcing agree doc by doc.

    python benchmarks/bench_tf_vs_generation.py                      # Gemma 3 270M, random_copy
    python benchmarks/bench_tf_vs_generation.py --family c4_copy --lengths 25,50 --docs 25 \\
        --text /usr/share/common-licenses/GPL-3
"""

from __future__ import annotations

import argparse
import json
import time

from copy_tasks.probes.families import FAMILIES


class ModelClock:
    """Seconds the model spends answering requests (lm-eval's own bookkeeping excluded)."""

    def __init__(self, lm) -> None:
        self.seconds = 0.0
        for method in ("generate_until", "loglikelihood"):
            setattr(lm, method, self._timed(getattr(lm, method)))

    def _timed(self, answer):
        def timed(requests, *args, **kwargs):
            start = time.perf_counter()
            try:
                return answer(requests, *args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        return timed


def run_task(lm, clock: ModelClock, task: str, task_manager) -> tuple[float, dict[int, float]]:
    """The model's seconds on one task and its per-doc exact-match verdicts."""
    import lm_eval

    before = clock.seconds
    out = lm_eval.simple_evaluate(model=lm, tasks=[task], task_manager=task_manager, log_samples=True)
    return clock.seconds - before, {s["doc_id"]: s["exact_match"] for s in out["samples"][task]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma-3-270m", help="a copy-tasks model name or a model folder")
    parser.add_argument("--family", default="random_copy", choices=sorted(FAMILIES))
    parser.add_argument("--lengths", default=None, help="comma-separated; default: every length")
    parser.add_argument("--docs", type=int, default=3, help="docs per length")
    parser.add_argument("--text", default=None, help="text source for the c4 families")
    parser.add_argument("--json", default=None, help="also write the table as JSON here")
    args = parser.parse_args(argv)

    from pathlib import Path

    from lm_eval.models.huggingface import HFLM

    from copy_tasks import task_manager
    from copy_tasks.experiments.real_models import MODELS, prepare
    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM

    folder = prepare(args.model) if args.model in MODELS else Path(args.model)
    family = FAMILIES[args.family]
    lengths = [int(x) for x in args.lengths.split(",")] if args.lengths else list(family.lengths)
    metadata = {"copy_tasks_docs": args.docs, "pretrained": str(folder)}
    if args.text:
        metadata["copy_tasks_text_source"] = args.text
    hf = HFLM(pretrained=str(folder), device="cpu", batch_size=1)
    fast = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=1)
    hf_clock, fast_clock = ModelClock(hf), ModelClock(fast)
    manager = task_manager(metadata=metadata)

    print(f"## Teacher-forced vs generation: {args.family} on {folder.name}, {args.docs} docs per length")
    print(f"{'length':>8}{'gen hf':>9}{'tf hf':>9}{'gen fast':>10}{'tf fast':>9}{'gen/tf hf':>11}"
          f"{'gen/tf fast':>13}{'agree':>9}")
    rows, agree, total = [], 0, 0
    for length in lengths:
        generation, forced = family.task_name(length), family.task_name(length, teacher_forced=True)
        gen_seconds, gen = run_task(hf, hf_clock, generation, manager)
        tf_seconds, tf = run_task(hf, hf_clock, forced, manager)
        fast_gen_seconds, gen_fast = run_task(fast, fast_clock, generation, manager)
        fast_seconds, tf_fast = run_task(fast, fast_clock, forced, manager)
        for name, ours, theirs in (("generation", gen_fast, gen), ("teacher-forced", tf_fast, tf)):
            if ours != theirs:
                print(f"hf_fast and hf disagree on {name} at {length}: {ours} vs {theirs}")
        same = sum(gen[i] == tf[i] for i in gen)
        agree, total = agree + same, total + len(gen)
        n = len(gen)
        row = {"length": length, "generation_hf_s_per_doc": gen_seconds / n,
               "teacher_forced_hf_s_per_doc": tf_seconds / n,
               "generation_fast_s_per_doc": fast_gen_seconds / n,
               "teacher_forced_fast_s_per_doc": fast_seconds / n, "agree": same, "docs": n,
               "generation_exact_match": sum(gen.values()) / n,
               "teacher_forced_exact_match": sum(tf.values()) / n}
        rows.append(row)
        g, t, gf, f = (row[k] for k in ("generation_hf_s_per_doc", "teacher_forced_hf_s_per_doc",
                                        "generation_fast_s_per_doc", "teacher_forced_fast_s_per_doc"))
        print(f"{length:>8}{g:>9.2f}{t:>9.2f}{gf:>10.2f}{f:>9.2f}{g / t:>11.1f}{gf / f:>13.1f}{same:>5}/{n:<3}")
    print(f"verdicts agree on {agree} of {total} docs ({agree / total:.1%})")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
