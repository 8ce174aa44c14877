"""GPU check: verdicts in bf16 and fp16 on CUDA match the CPU fp32 run, and how fast it goes.

For a maintainer with one GPU and no network (`benchmarks/gpu_check.sh`, under 10 minutes on
one GPU): builds tiny random GPT-NeoX, Gemma 3 (sliding-window layers) and Mamba models
locally; runs every family's shortest length, generation and teacher-forced (the natural-text
families on text written from the installed task READMEs, `squad_length` on a small SQuAD
file written here), once on the CPU in float32 through `hf`, then on the device in bfloat16
and float16 through `hf` and `hf_fast` at batch 1 and 16. It asserts that every doc's verdict
(exact match) equals the CPU fp32 run's, that `hf_fast` switched Gemma 3 to banded attention
and that its teacher-forced log-probabilities match `hf`'s on the device, and prints tokens per
second for each run and its ratio to the same backend and dtype at the first batch size. Exits 1
on the first mismatch, naming it.

    python benchmarks/gpu_check.py                         # the full check on cuda
    python benchmarks/gpu_check.py --device cpu --models gpt_neox --dtypes bfloat16 \\
        --batch-sizes 1 --docs 2                           # a smoke run without a GPU
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import tempfile
import time
from pathlib import Path

SHORTEST = {  # every family's shortest shipped length
    "phonebook_copy": 10, "c4_copy": 25, "c4_copy_shuffled": 25, "random_copy": 10,
    "dup_ngram_copy": 1, "lookup_suffix": 20, "lookup_prefix": 20, "squad_length": 100,
}
BANDED_TASK = "phonebook_copy_tf_100"  # about 1,300 tokens: long enough for banded blocks


def tasks() -> list[str]:
    return [f"{family}{suffix}_{length}" for family, length in SHORTEST.items() for suffix in ("", "_tf")]


def write_sources(folder: Path) -> dict[str, str]:
    """A text source (the installed family READMEs) and a small SQuAD v2 file."""
    import copy_tasks

    readmes = sorted(copy_tasks.task_config_dir().glob("*/README.md"))
    text = folder / "text.txt"
    text.write_text("\n\n".join(path.read_text() for path in readmes))
    words = text.read_text().split()
    paragraphs = []
    for number in range(4):
        context = " ".join(words[number * 60: number * 60 + 60])
        first, last = context.split()[0], context.split()[-1]
        paragraphs.append({"context": context, "qas": [
            {"id": f"p{number}-a", "question": f"Which word opens paragraph {number}?", "is_impossible": False,
             "answers": [{"text": first, "answer_start": 0}]},
            {"id": f"p{number}-b", "question": f"Which word closes paragraph {number}?", "is_impossible": False,
             "answers": [{"text": last, "answer_start": len(context) - len(last)}]},
        ]})
    squad = folder / "squad.json"
    squad.write_text(json.dumps({"version": "v2.0", "data": [{"title": "check", "paragraphs": paragraphs}]}))
    return {"copy_tasks_text_source": str(text), "copy_tasks_squad_source": str(squad)}


def run(backend: str, folder: Path, device: str, dtype: str, batch_size: int, task_manager, task_list):
    """(seconds, {task: [verdict per doc]}, {task: [logprob per doc]}, tokens generated or scored).
    `task_manager` (lm-eval's, with the run's metadata) is built once: indexing every task
    lm-eval ships takes longer than a tiny model's run."""
    import lm_eval
    from transformers import AutoTokenizer

    count = AutoTokenizer.from_pretrained(folder)

    model_args = f"pretrained={folder},dtype={dtype}"
    start = time.perf_counter()
    results = lm_eval.simple_evaluate(model=backend, model_args=model_args, tasks=list(task_list), device=device,
                                      batch_size=batch_size, task_manager=task_manager, log_samples=True)
    seconds = time.perf_counter() - start
    verdicts, logprobs, tokens = {}, {}, 0
    for task, samples in results["samples"].items():
        verdicts[task] = [sample.get("exact_match") for sample in samples]
        if "_tf_" in task:
            logprobs[task] = [sample.get("logprob") for sample in samples]
            tokens += sum(len(count(sample["doc"]["continuation"])["input_ids"]) for sample in samples)
        else:
            tokens += sum(len(count(sample["resps"][0][0])["input_ids"]) for sample in samples)
    return seconds, verdicts, logprobs, tokens


def check(condition: bool, message: str) -> None:
    if not condition:
        print(f"MISMATCH: {message}", flush=True)
        raise SystemExit(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--models", default="gpt_neox,gemma3,mamba")
    parser.add_argument("--dtypes", default="bfloat16,float16")
    parser.add_argument("--batch-sizes", default="1,16")
    parser.add_argument("--docs", type=int, default=16, help="docs per task")
    args = parser.parse_args(argv)
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    import copy_tasks.models.fast_hf  # noqa: F401  (registers hf_fast)
    from copy_tasks import task_manager as with_our_tasks
    from copy_tasks.experiments.tiny_models import build_tiny_model
    from copy_tasks.models.banded_attention import BANDED_SDPA
    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM

    root = Path(tempfile.mkdtemp())
    # our tasks indexed with or without the start-up hook (copy-tasks installed, or a checkout on PYTHONPATH)
    task_manager = with_our_tasks(metadata={"copy_tasks_docs": args.docs, **write_sources(root)})
    print(f"{'model':<10}{'backend':<9}{'dtype':<10}{'batch':>6}{'seconds':>9}{'tokens/s':>10}{'x first batch':>14}"
          "  verdicts")
    for architecture in args.models.split(","):
        folder = build_tiny_model(architecture, root / architecture)
        task_list = tasks() + ([BANDED_TASK] if architecture == "gemma3" else [])
        seconds, reference, _, tokens = run("hf", folder, "cpu", "float32", 1, task_manager, task_list)
        print(f"{architecture:<10}{'hf':<9}{'float32':<10}{1:>6}{seconds:>9.1f}{tokens / seconds:>10.0f}{'':>14}  "
              f"reference (cpu)", flush=True)
        for dtype in args.dtypes.split(","):
            logprobs_by_backend = {}
            for backend in ("hf", "hf_fast"):
                first_speed = None
                for batch_size in map(int, args.batch_sizes.split(",")):
                    seconds, verdicts, logprobs, tokens = run(backend, folder, args.device, dtype, batch_size,
                                                              task_manager, task_list)
                    for task in task_list:
                        check(verdicts[task] == reference[task],
                              f"{architecture} {backend} {dtype} batch {batch_size} {task}: "
                              f"{verdicts[task]} != cpu fp32 {reference[task]}")
                    logprobs_by_backend[backend] = logprobs
                    first_speed = first_speed or tokens / seconds
                    print(f"{architecture:<10}{backend:<9}{dtype:<10}{batch_size:>6}{seconds:>9.1f}"
                          f"{tokens / seconds:>10.0f}{tokens / seconds / first_speed:>14.2f}  "
                          f"{sum(map(len, verdicts.values()))} match", flush=True)
            for task, values in logprobs_by_backend["hf"].items():
                fast = logprobs_by_backend["hf_fast"][task]
                gap = max(abs(a - b) for a, b in zip(values, fast) if a is not None and b is not None)
                tolerance = 0.05 * max(1.0, max(abs(a) for a in values if a is not None))
                check(math.isfinite(gap) and gap <= tolerance,
                      f"{architecture} {dtype} {task}: hf_fast log-probabilities differ from hf by {gap:.3g}")
        if architecture == "gemma3":
            lm = FastLoglikelihoodHFLM(pretrained=str(folder), device=args.device, dtype=args.dtypes.split(",")[0])
            check(lm.model.config._attn_implementation == BANDED_SDPA,
                  f"hf_fast left Gemma 3 on {lm.model.config._attn_implementation} on {args.device}")
            print(f"gemma3    hf_fast on {args.device}: banded attention ({BANDED_SDPA})", flush=True)
    print("gpu check passed")


if __name__ == "__main__":
    sys.exit(main())
