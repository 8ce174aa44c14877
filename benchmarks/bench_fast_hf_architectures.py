"""`hf_fast` against lm-eval's `hf` on the architecture sweep's state-space models and hybrids
(`copy_tasks.experiments.tiny_architectures`), teacher forcing: seconds for the same requests,
side by side in one run, and whether the numbers agree.

The sweep's models are tiny (width 32); a model's output layer over a large vocabulary is where
`hf_fast` saves (it applies it at the scored positions only, and scores an `mqar` doc's 8
questions from one forward pass), so each is built here with a vocabulary of 32,768 tokens,
the size of a small real model's. Requests: 4 copies of 200 symbols, 2 phone books of 100
entries and 2 `mqar` docs of 64 pairs (8 questions each), 24 in all; batch 8; one thread.

    python benchmarks/bench_fast_hf_architectures.py [--architectures jamba,mamba2,...]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

ARCHITECTURES = ("mamba2", "falcon_mamba", "jamba", "zamba2", "bamba", "lfm2", "qwen3_next", "nemotron_h", "gpt_neox")
VOCABULARY = 32_768


def requests():
    
    from copy_tasks.harness.lm_eval_internals import new_request
    from copy_tasks.probes.families import FAMILIES
    from copy_tasks.probes.task_docs import generate_docs

    docs = [*generate_docs("random_copy", 200, 1, 4), *generate_docs("phonebook_copy", 100, 1, 2)]
    docs += [question for doc in generate_docs("mqar", 64, 1, 2) for question in FAMILIES["mqar"].request_docs(doc)]
    return [new_request("loglikelihood", doc, (doc["prompt"], doc["continuation"]))
            for doc in docs]


def build(model_type: str, folder: Path) -> Path:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from copy_tasks.experiments.tiny_architectures import SMALL, SWEEP, build_tiny_architecture

    build_tiny_architecture(model_type, folder)
    config = AutoConfig.for_model(model_type, **{**SMALL, **SWEEP[model_type], "vocab_size": VOCABULARY,
                                                 "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0})
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)  # the same tokenizer, a larger output layer
    return folder


def timed(backend, folder: Path, cases) -> tuple[float, list]:
    lm = backend(pretrained=str(folder), device="cpu", batch_size=8)
    started = time.perf_counter()
    answers = lm.loglikelihood(cases)
    return time.perf_counter() - started, answers


def main(argv: list[str] | None = None) -> None:
    import torch
    from lm_eval.models.huggingface import HFLM

    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--architectures", default=",".join(ARCHITECTURES))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cases = requests()
    print(f"## hf_fast against hf, teacher forcing, {len(cases)} requests, vocabulary {VOCABULARY:,}, batch 8")
    print("| architecture | hf s | hf_fast s | ratio | fast path | same greedy | max abs log-prob difference |")
    print("|---|---:|---:|---:|---|---|---:|")
    with tempfile.TemporaryDirectory() as root:
        for model_type in args.architectures.split(","):
            folder = build(model_type, Path(root) / model_type)
            hf_seconds, expected = timed(HFLM, folder, cases)
            fast_seconds, got = timed(FastLoglikelihoodHFLM, folder, cases)
            fast = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=8)._logits_of is not None
            same = [g for _, g in got] == [g for _, g in expected]
            difference = max(abs(a - b) for (a, _), (b, _) in zip(got, expected))
            print(f"| {model_type} | {hf_seconds:.1f} | {fast_seconds:.1f} | {hf_seconds / fast_seconds:.1f}x | "
                  f"{'yes' if fast else 'no'} | {same} | {difference:.1e} |", flush=True)


if __name__ == "__main__":
    main()
