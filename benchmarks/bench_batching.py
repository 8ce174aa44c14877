"""Batching: generation with the budget ladder against per-doc budgets, and `hf_fast` batched.

lm-eval batches generation requests only when their settings are equal, so per-doc budgets
(the answer's canonical tokens plus 4, the rule before the ladder) split a task into many small
batches. On a tiny random GPT-NeoX built locally (it never stops early, so every request
decodes its whole budget), `dup_ngram_copy_4` and `random_copy_50` are generated at batch 1
and 16 with both rules, side by side; the figure is generated tokens per second, and its ratio
to batch 1. Then teacher-forced requests through `hf_fast` at batch 1 and 16 (requests per
second, and that all verdicts agree).
Run with `python benchmarks/run.py` (all benchmarks) or this file alone.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

TASKS = ("dup_ngram_copy_4", "random_copy_50")
TF_TASKS = ("random_copy_tf_50", "phonebook_copy_tf_20", "lookup_suffix_tf_50")


def per_doc_budget(tokenizer):
    """The rule before the ladder: the continuation's canonical tokens plus 4."""
    return lambda family, doc: 4 + len(tokenizer(doc["continuation"], add_special_tokens=False)["input_ids"])


def timed_run(lm, tasks, docs: int) -> tuple[float, dict]:
    import lm_eval

    start = time.perf_counter()
    results = lm_eval.simple_evaluate(model=lm, tasks=list(tasks), metadata={"copy_tasks_docs": docs},
                                      log_samples=True)
    return time.perf_counter() - start, results


def generated_tokens(lm, results) -> tuple[int, int]:
    """(tokens generated, distinct budgets) over the run's samples."""
    tokens, budgets = 0, set()
    for samples in results["samples"].values():
        for sample in samples:
            tokens += len(lm.tok_encode(sample["resps"][0][0]))
            budgets.add(sample["arguments"][0][1]["max_gen_toks"])
    return tokens, len(budgets)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=64, help="docs per task")
    args = parser.parse_args(argv)
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    import copy_tasks  # noqa: F401  (registers our tasks with lm-eval)
    from copy_tasks.experiments.tiny_models import build_tiny_model
    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM
    from copy_tasks.probes.family import Family

    folder = build_tiny_model("gpt_neox", Path(tempfile.mkdtemp()) / "tiny")
    print(f"## Batching (tiny GPT-NeoX, {', '.join(TASKS)}, {args.docs} docs each)")
    print(f"{'budgets':<28}{'batch':>6}{'distinct':>10}{'seconds':>9}{'tokens/s':>10}{'x batch 1':>11}")
    ladder = Family.generation_budget
    at_16 = {}
    for label in ("per doc (tokens + 4)", "ladder 50 x 2^(k/3)"):
        base = None
        for batch_size in (1, 16):
            lm = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=batch_size)
            Family.generation_budget = per_doc_budget(lm.tokenizer) if label.startswith("per doc") else ladder
            try:
                seconds, results = timed_run(lm, TASKS, args.docs)
            finally:
                Family.generation_budget = ladder
            tokens, distinct = generated_tokens(lm, results)
            rate = tokens / seconds
            base = base or rate
            print(f"{label:<28}{batch_size:>6}{distinct:>10}{seconds:>9.1f}{rate:>10.0f}{rate / base:>11.2f}")
            at_16[label] = rate
    per_doc, bucketed = at_16.values()
    print(f"at batch 16 the ladder generates {bucketed / per_doc:.2f}x the tokens per second of per-doc budgets")
    print()
    print(f"## hf_fast teacher forcing ({', '.join(TF_TASKS)}, {args.docs} docs each)")
    print(f"{'batch':>6}{'seconds':>9}{'requests/s':>12}{'x batch 1':>11}")
    verdicts, base = {}, None
    for batch_size in (1, 16):
        lm = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=batch_size)
        seconds, results = timed_run(lm, TF_TASKS, args.docs)
        rate = args.docs * len(TF_TASKS) / seconds
        base = base or rate
        verdicts[batch_size] = [sample["exact_match"] for task in TF_TASKS for sample in results["samples"][task]]
        print(f"{batch_size:>6}{seconds:>9.1f}{rate:>12.1f}{rate / base:>11.2f}")
    print(f"verdicts agree at batch 1 and 16: {verdicts[1] == verdicts[16]}")


if __name__ == "__main__":
    main()
