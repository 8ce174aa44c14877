"""Full default sweeps of every offline family for both reference models, through lm-eval.

Target: both sweeps together in under 2 minutes on 2 CPU cores. Prints seconds per model and
the mean exact match over the tasks (ngram_copier must be 1.0).
"""

from __future__ import annotations

import time


def main() -> None:
    import lm_eval

    import copy_tasks.models.reference_lm  # noqa: F401  (registers the reference models)
    from copy_tasks import task_manager
    from copy_tasks.harness.lm_eval_internals import results_key

    print("## Reference models: full default sweeps of copy_tasks_offline through lm-eval")
    print(f"{'model':<28}{'tasks':>8}{'seconds':>10}{'mean exact match':>18}")
    total = 0.0
    for model, args in (("ngram_copier", ""), ("bounded_state", "bits=276")):
        start = time.perf_counter()
        out = lm_eval.simple_evaluate(model=model, model_args=args, tasks=["copy_tasks_offline"],
                                      task_manager=task_manager())
        seconds = time.perf_counter() - start
        total += seconds
        scores = [r[results_key("exact_match")] for name, r in out["results"].items() if name[-1].isdigit()]
        print(f"{model + ' ' + args:<28}{len(scores):>8}{seconds:>10.1f}{sum(scores) / len(scores):>18.3f}")
    print(f"{'both':<28}{'':>8}{total:>10.1f}   (target: under 120 s)")


if __name__ == "__main__":
    main()
