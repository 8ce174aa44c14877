"""Our variants against the authors' protocol and against one forward pass, on the same docs.

For each family and length, the same docs (as lm-eval builds them) are answered four ways:
- authors: their loop: one prompt at a time, greedy `generate` with their fixed budgets
  (`max_length` = prompt + 50 tokens for the phone-book, 1.5 x prompt + 50 for copies), no stop
  sequence; the output is scored with the same rule as ours (the authors' cut);
- generation: our generation task through lm-eval (`hf`, batch 1): per-doc budget, stop
  sequences;
- teacher-forced: our teacher-forced task through lm-eval with `hf_fast`;
- forward pass: the limit: one forward pass over prompt plus target, keeping logits at the
  target's positions only, with lm-eval's tokens and `hf_fast`'s model (the same attention as
  teacher forcing): what any exact scorer must at least spend.

Prints seconds per doc (model time: lm-eval's bookkeeping excluded) side by side, the ratios,
and how often the verdicts agree doc by doc (authors vs generation, generation vs
teacher-forced).

    python benchmarks/bench_protocols.py                          # Gemma 3 270M and a tiny model
    python benchmarks/bench_protocols.py --models tiny --docs 5
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from pathlib import Path

import torch
from bench_tf_vs_generation import ModelClock, run_task

from copy_tasks.probes.families import FAMILIES

DEFAULT_TEXT = Path("/usr/share/common-licenses/GPL-3")
LENGTHS = {"phonebook_copy": (20, 50, 100), "c4_copy": (25, 50, 100)}


def authors_max_length(family: str, prompt_tokens: int) -> int:
    """The authors' `max_length` for `generate`: prompt + 50 (phone-book), 1.5 x prompt + 50 (copies)."""
    return prompt_tokens + 50 if family == "phonebook_copy" else int(1.5 * prompt_tokens) + 50


@torch.no_grad()
def authors_loop(lm, family: str, docs: list[dict]) -> tuple[float, dict[int, float]]:
    """Seconds and per-doc exact-match verdicts of the authors' generation loop."""
    tokenizer, model, score = lm.tokenizer, lm.model, FAMILIES[family].score_one_reading
    verdicts, seconds = {}, 0.0
    for index, doc in enumerate(docs):
        start = time.perf_counter()
        inputs = tokenizer(doc["prompt"], return_tensors="pt")
        prompt_tokens = inputs["input_ids"].shape[1]
        output = model.generate(**inputs, max_length=authors_max_length(family, prompt_tokens), do_sample=False,
                                pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
        text = tokenizer.decode(output[0, prompt_tokens:], skip_special_tokens=True)
        seconds += time.perf_counter() - start
        verdicts[index] = score(text, doc)["exact_match"]
    return seconds, verdicts


@torch.no_grad()
def forward_pass_limit(lm, docs: list[dict]) -> float:
    """Seconds of one forward pass per doc over prompt + target, logits at the target only."""
    seconds = 0.0
    for doc in docs:
        context, target = lm.tok_encode(doc["prompt"]), lm.tok_encode(doc["target"], add_special_tokens=False)
        inputs = torch.tensor([(context + target)[:-1]])
        start = time.perf_counter()
        lm.model(inputs, logits_to_keep=len(target))
        seconds += time.perf_counter() - start
    return seconds


def _model_folder(name: str, scratch: Path) -> Path:
    from copy_tasks.experiments.real_models import MODELS, prepare
    from copy_tasks.experiments.tiny_models import build_tiny_model

    if name == "tiny":
        return build_tiny_model("gpt_neox", scratch / "tiny")
    return prepare(name) if name in MODELS else Path(name)


def bench_model(name: str, docs: int, text: str, scratch: Path) -> list[dict]:
    from lm_eval.models.huggingface import HFLM

    from copy_tasks import task_manager
    from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM

    folder = _model_folder(name, scratch)
    manager = task_manager(metadata={"copy_tasks_docs": docs, "pretrained": str(folder),
                                     "copy_tasks_text_source": text})
    hf = HFLM(pretrained=str(folder), device="cpu", batch_size=1)
    fast = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=1)
    hf_clock, fast_clock = ModelClock(hf), ModelClock(fast)
    with torch.no_grad():  # warm up both copies of the model before anything is timed
        for lm in (hf, fast):
            lm.model(torch.tensor([lm.tok_encode("warm up the model")]))
    print(f"## Authors' protocol vs ours: {name}, {docs} docs per length")
    print(f"{'task':<22}{'authors':>9}{'gen':>8}{'tf':>8}{'fwd':>8}{'auth/gen':>10}{'auth/tf':>9}"
          f"{'gen/tf':>8}{'tf/fwd':>8}{'agree a=g':>11}{'agree g=t':>11}")
    rows = []
    for family, lengths in LENGTHS.items():
        for length in lengths:
            task = FAMILIES[family].task_name(length)
            task_docs = list(manager.load([task])["tasks"][task].test_docs())
            authors_seconds, authors = authors_loop(hf, family, task_docs)
            gen_seconds, gen = run_task(hf, hf_clock, task, manager)
            tf_seconds, tf = run_task(fast, fast_clock, FAMILIES[family].task_name(length, True), manager)
            forward_seconds = forward_pass_limit(fast, task_docs)
            n = len(task_docs)
            row = {"model": name, "task": task, "docs": n, "authors_s_per_doc": authors_seconds / n,
                   "generation_s_per_doc": gen_seconds / n, "teacher_forced_s_per_doc": tf_seconds / n,
                   "forward_pass_s_per_doc": forward_seconds / n,
                   "agree_authors_generation": sum(authors[i] == gen[i] for i in gen),
                   "agree_generation_teacher_forced": sum(gen[i] == tf[i] for i in gen),
                   "exact_match": {"authors": sum(authors.values()) / n, "generation": sum(gen.values()) / n,
                                   "teacher_forced": sum(tf.values()) / n}}
            rows.append(row)
            a, g, t, f = (row[k] for k in ("authors_s_per_doc", "generation_s_per_doc",
                                           "teacher_forced_s_per_doc", "forward_pass_s_per_doc"))
            print(f"{task:<22}{a:>9.3f}{g:>8.3f}{t:>8.3f}{f:>8.3f}{a / g:>10.1f}{a / t:>9.1f}{g / t:>8.1f}"
                  f"{t / f:>8.2f}{row['agree_authors_generation']:>7}/{n:<3}"
                  f"{row['agree_generation_teacher_forced']:>7}/{n:<3}")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="gemma-3-270m,tiny",
                        help="comma-separated: copy-tasks model names, model folders, or `tiny`")
    parser.add_argument("--docs", type=int, default=3, help="docs per length")
    parser.add_argument("--text", default=str(DEFAULT_TEXT), help="local text for c4_copy")
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.models.split(","):
            rows += bench_model(name.strip(), args.docs, args.text, Path(scratch))
            print()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
