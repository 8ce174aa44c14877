"""`hf_fast` teacher forcing: peak memory and seconds per doc, by batch size and code path
(issue 41, findings 1 and 2, and its goal of 6 GB at 1,000 entries and batch 8).

Paths:
*old*: one `logits_to_keep` per batch, the positions from the earliest scored position of any
row to the padded end, logits for all of them, the padding mask given to the model, the batch
in one forward pass (hf_fast's path for a model whose output layer it does not know; selected
here by clearing the model's `_logits_of`). *onepass*: the forward pass stops at the output
layer, which is applied to each row's own scored positions, 128 at a time for a 262,144-token
vocabulary, no padding mask; the batch in one forward pass. *new*: as *onepass*, the batch in
forward passes of at most `FORWARD_TOKENS` padded tokens (hf_fast now). A batch size `auto` is
`--batch_size auto` as hf_fast sizes it (the batch it chose is printed).

Each run (path:batch) of a task runs in a process of its own, one after another, so each peak
resident set (`ru_maxrss`, model loading included) is its own; scores are compared doc by doc
with the task's first run. `--stages` also samples the resident set every 2 ms and prints, per
run, the highest seen while each module of the model ran (the innermost one running): where the
peak arises.

    python benchmarks/bench_fast_hf_memory.py                         # Gemma 3 270M, 200 entries
    python benchmarks/bench_fast_hf_memory.py --lengths 1000 --runs new:1,onepass:8,new:8
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from background_sampler import BackgroundSampler

FAMILIES = ("phonebook_copy", "random_copy")
PATHS = ("old", "onepass", "new")
STAGES_SHOWN = 6


class StagePeaks(BackgroundSampler):
    """While active, the highest resident set of this process seen while each module of `model`
    runs (the innermost running module, layer numbers as N), sampled every 2 ms."""

    def __init__(self, model) -> None:
        import psutil

        super().__init__(interval=0.002)

        self.process = psutil.Process()
        self.running = ["(outside the model)"]
        self.peaks: dict[str, int] = {}
        for name, module in model.named_modules():
            label = re.sub(r"\.\d+(?=\.|$)", ".N", name) or "(the model's forward, outside its modules)"
            module.register_forward_pre_hook(lambda module, args, label=label: self.running.append(label))
            module.register_forward_hook(self._left)

    def _left(self, module, args, output) -> None:
        self.running.pop()

    def sample(self) -> None:
        rss, stage = self.process.memory_info().rss, self.running[-1]
        self.peaks[stage] = max(rss, self.peaks.get(stage, 0))

    def highest(self, count: int) -> list[tuple[str, int]]:
        return sorted(self.peaks.items(), key=lambda item: -item[1])[:count]


def child(spec: dict) -> dict:
    """Run one (task, path, batch) in this process: seconds in the model, peak memory, scores."""
    import contextlib
    import logging
    import resource

    import lm_eval
    from bench_tf_vs_generation import ModelClock

    from copy_tasks import task_manager
    from copy_tasks.models import fast_hf

    for noisy in ("lm_eval", "copy_tasks"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    lm = fast_hf.FastLoglikelihoodHFLM(pretrained=spec["folder"], device="cpu", batch_size=spec["batch"])
    if spec["path"] in ("old", "onepass"):
        fast_hf.FORWARD_TOKENS = sys.maxsize
    if spec["path"] == "old":
        lm._logits_of = None
    clock = ModelClock(lm)
    manager = task_manager(metadata={"copy_tasks_docs": spec["docs"], "pretrained": spec["folder"]})
    stages = StagePeaks(lm.model) if spec["stages"] else contextlib.nullcontext()
    with stages:
        out = lm_eval.simple_evaluate(model=lm, tasks=[spec["task"]], task_manager=manager, log_samples=True)
    scores = {s["doc_id"]: list(s["resps"][0][0]) for s in out["samples"][spec["task"]]}
    return {"seconds": clock.seconds, "docs": len(scores), "scores": scores,
            "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "batch_sizes": out["config"].get("batch_sizes") or [spec["batch"]],
            "stages": stages.highest(STAGES_SHOWN) if spec["stages"] else []}


def run_child(spec: dict) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True, text=True,
                          cwd=Path(__file__).parent)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["killed"])[-1][:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def parse_runs(text: str) -> list[tuple[str, str]]:
    """`path:batch` pairs, comma-separated.

    >>> parse_runs("old:1,new:8,new:auto")
    [('old', '1'), ('new', '8'), ('new', 'auto')]
    """
    runs = []
    for item in text.split(","):
        path, _, batch = item.partition(":")
        if path not in PATHS or not (batch.isdigit() or batch == "auto"):
            raise SystemExit(f"--runs: {item!r} is not path:batch with a path of {', '.join(PATHS)} and a batch size "
                             "(a number or auto)")
        runs.append((path, batch))
    return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma-3-270m", help="a copy-tasks model name or a model folder")
    parser.add_argument("--lengths", default="200", help="entries (phone book) and symbols (random copy)")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--runs", default="old:1,old:8,new:1,new:8", help="path:batch pairs, in order (paths: "
                        f"{', '.join(PATHS)}; batch: a number or auto)")
    parser.add_argument("--docs", type=int, default=8, help="docs per task (--limit)")
    parser.add_argument("--stages", action="store_true", help="also print where each run's memory peaked")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    runs = parse_runs(args.runs)
    from copy_tasks.experiments.real_models import MODELS, prepare

    folder = str(prepare(args.model) if args.model in MODELS else Path(args.model))
    print(f"## hf_fast teacher forcing by batch size ({Path(folder).name}, {args.docs} docs a task, one process "
          f"each, {time.strftime('%Y-%m-%d')})")
    print(f"{'task':<24}{'path':>8}{'batch':>6}{'s/doc':>8}{'peak GB':>9}{'x faster':>10}{'max |dlogp|':>13}"
          f"{'greedy same':>13}")
    for length in (int(x) for x in args.lengths.split(",")):
        for family in args.families.split(","):
            task = f"{family}_tf_{length}"
            reference, first = None, None
            for path, batch in runs:
                got = run_child({"folder": folder, "task": task, "path": path, "docs": args.docs,
                                 "batch": batch if batch == "auto" else int(batch), "stages": args.stages})
                if "error" in got:
                    print(f"{task:<24}{path:>8}{batch:>6}  failed: {got['error']}")
                    continue
                per_doc = got["seconds"] / got["docs"]
                first = first or per_doc
                reference = reference or got["scores"]
                shown = batch if batch != "auto" else f"a{got['batch_sizes'][0]}"
                delta = max(abs(got["scores"][d][0] - reference[d][0]) for d in reference)
                same = sum(got["scores"][d][1] == reference[d][1] for d in reference)
                print(f"{task:<24}{path:>8}{shown:>6}{per_doc:>8.2f}{got['peak_kb'] / 1e6:>9.2f}"
                      f"{first / per_doc:>10.2f}{delta:>13.1e}{same:>11}/{len(reference)}", flush=True)
                for stage, rss in got["stages"]:
                    print(f"{'':<30}{rss / 1e9:6.2f} GB while {stage} ran")
    print("x faster: against the task's first run; |dlogp|, greedy: against the task's first run")


if __name__ == "__main__":
    main()
