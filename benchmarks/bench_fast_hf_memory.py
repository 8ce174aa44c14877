"""`hf_fast` teacher forcing: peak memory and seconds per doc, by batch size, before and after
the output layer was applied to each row's scored positions alone (issue 41, findings 1 and 2).

*old*: one `logits_to_keep` per batch, the positions from the earliest scored position of any
row to the padded end, logits for all of them (hf_fast's path for a model whose output layer it
does not know; selected here by clearing the model's `_logits_of`). *new*: the forward pass stops
at the output layer, which is applied to each row's own scored positions, 128 at a time for a
262,144-token vocabulary. *auto*: `--batch_size auto` as hf_fast sizes it (the batch it chose
is printed). Each (task, path, batch) runs in a process of its own, one after another, so each
peak resident set (`ru_maxrss`, model loading included) is its own; scores are compared doc
by doc with the new path at batch 1.

    python benchmarks/bench_fast_hf_memory.py                         # Gemma 3 270M, 200 entries
    python benchmarks/bench_fast_hf_memory.py --lengths 1000 --paths new --batches 1,8
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

FAMILIES = ("phonebook_copy", "random_copy")


def child(spec: dict) -> dict:
    """Run one (task, path, batch) in this process: seconds in the model, peak memory, scores."""
    import logging
    import resource

    import lm_eval
    from bench_tf_vs_generation import ModelClock

    from copy_tasks import task_manager
    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM

    for noisy in ("lm_eval", "copy_tasks"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    lm = FastLoglikelihoodHFLM(pretrained=spec["folder"], device="cpu", batch_size=spec["batch"])
    if spec["path"] == "old":
        lm._logits_of = None
    clock = ModelClock(lm)
    manager = task_manager(metadata={"copy_tasks_docs": spec["docs"], "pretrained": spec["folder"]})
    out = lm_eval.simple_evaluate(model=lm, tasks=[spec["task"]], task_manager=manager, log_samples=True)
    scores = {s["doc_id"]: list(s["resps"][0][0]) for s in out["samples"][spec["task"]]}
    return {"seconds": clock.seconds, "docs": len(scores), "scores": scores,
            "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "batch_sizes": out["config"].get("batch_sizes") or [spec["batch"]]}


def run_child(spec: dict) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True, text=True,
                          cwd=Path(__file__).parent)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["killed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma-3-270m", help="a copy-tasks model name or a model folder")
    parser.add_argument("--lengths", default="200", help="entries (phone book) and symbols (random copy)")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--paths", default="old,new")
    parser.add_argument("--batches", default="1,8", help="comma-separated batch sizes, or auto")
    parser.add_argument("--docs", type=int, default=8, help="docs per task (--limit)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    from copy_tasks.experiments.real_models import MODELS, prepare

    folder = str(prepare(args.model) if args.model in MODELS else Path(args.model))
    print(f"## hf_fast teacher forcing by batch size ({Path(folder).name}, {args.docs} docs a task, one process "
          "each)")
    print(f"{'task':<24}{'path':>5}{'batch':>6}{'s/doc':>8}{'peak GB':>9}{'x faster':>10}{'max |dlogp|':>13}"
          f"{'greedy same':>13}")
    for length in (int(x) for x in args.lengths.split(",")):
        for family in args.families.split(","):
            task = f"{family}_tf_{length}"
            reference, firsts = None, {}
            for path in args.paths.split(","):
                for batch in args.batches.split(","):
                    got = run_child({"folder": folder, "task": task, "path": path, "docs": args.docs,
                                     "batch": batch if batch == "auto" else int(batch)})
                    if "error" in got:
                        print(f"{task:<24}{path:>5}{batch:>6}  failed: {got['error']}")
                        continue
                    per_doc = got["seconds"] / got["docs"]
                    firsts.setdefault(path, per_doc)
                    reference = reference or got["scores"]
                    shown = batch if batch != "auto" else f"a{got['batch_sizes'][0]}"
                    delta = max(abs(got["scores"][d][0] - reference[d][0]) for d in reference)
                    same = sum(got["scores"][d][1] == reference[d][1] for d in reference)
                    print(f"{task:<24}{path:>5}{shown:>6}{per_doc:>8.2f}{got['peak_kb'] / 1e6:>9.2f}"
                          f"{firsts[path] / per_doc:>10.2f}{delta:>13.1e}{same:>9}/{len(reference)}", flush=True)
    print("x faster: against the same path's first batch size; |dlogp|, greedy: against the first row of the task")


if __name__ == "__main__":
    main()
