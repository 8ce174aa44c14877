"""Why NoPE and RoPE never learned to copy in recipe `full` (issue 52): the copy task's training
varied one thing at a time, on the project's own loop (`copy_tasks.experiments.training.train`),
each variant scored by teacher-forced exact match (every answer token the argmax) on held-out
copies of 10 and 20 letters, the training lengths' middle and end.

The variants (`VARIANTS`), from the recipe's copy training cut to its single-example phase (the
published NoPE sat at the uniform loss there already; RoPE learned there and lost it on the
packed rows, the `-packed` variants):
- `recipe`: 300 single-example steps, learning rate 1e-3, 100 warm-up steps, the END label;
- `no-end`: the same without the loss on the `.` after the copy;
- `lr-3e-4`, `lr-3e-3`: another learning rate;
- `warmup-300`: a longer warm-up;
- `steps-900`: three times the steps;
- `packed`, `lr-3e-3-packed`, `steps-900-packed`: the recipe's, and two of the above, followed by
  the recipe's 300 packed rows of 2,048 tokens (slow: about 8 CPU-minutes more each).

    python benchmarks/pilot_copy_training.py --architectures transformer-nope,transformer-rope
    python benchmarks/pilot_copy_training.py --architectures transformer-rope --variants lr-3e-3-packed

One torch thread; about 2 CPU-minutes a variant and architecture without a packed phase. Prints a
Markdown table: exact match at 10 and 20 letters, final loss, seconds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

VARIANTS = {
    "recipe": {},
    "no-end": {"end_mark": False},
    "lr-3e-4": {"learning_rate": 3e-4},
    "lr-3e-3": {"learning_rate": 3e-3},
    "warmup-300": {"warmup_steps": 300},
    "steps-900": {"steps": 900},
    # the recipe's packed phase after the single steps (slow: about 8 CPU-minutes more)
    "packed": {"packed": True},
    "lr-3e-3-packed": {"learning_rate": 3e-3, "packed": True},
    "steps-900-packed": {"steps": 900, "packed": True},
}
QUICK = ("recipe", "no-end", "lr-3e-4", "lr-3e-3", "warmup-300", "steps-900")  # without the packed phase
HELD_OUT_SEED = 98765  # a stream of its own: no training seed's


def recipe_of(settings: dict):
    from copy_tasks.experiments.recipes import RECIPES, Phases

    full = RECIPES["full"]
    steps = settings.get("steps", full.phases["copy"].single_steps)
    phases = Phases(steps, full.phases["copy"].packed_steps if settings.get("packed") else 0)
    changes = {key: value for key, value in settings.items() if key in ("learning_rate", "warmup_steps")}
    return replace(full, phases={**full.phases, "copy": phases}, seeds=(0,), **changes)


def exact_match(model, tokenizer, recipe, length: int, docs: int = 64) -> float:
    import torch

    from copy_tasks.experiments.training_data import single_batch, training_example

    examples = [training_example(recipe, "copy", HELD_OUT_SEED, index, (length, length)) for index in range(docs)]
    ids, mask, labels = single_batch(tokenizer, examples)
    with torch.no_grad():
        predicted = model(input_ids=ids, attention_mask=mask).logits.argmax(-1)[:, :-1]
    target = labels[:, 1:]
    wrong = ((predicted != target) & (target != -100)).any(dim=1)
    return 1.0 - wrong.float().mean().item()


def run(architecture: str, name: str, settings: dict) -> dict:
    import torch

    from copy_tasks.experiments import training_tasks
    from copy_tasks.experiments.training import model_folder, train
    from copy_tasks.experiments.training_data import tokenizer_for

    torch.set_num_threads(1)
    recipe = recipe_of(settings)
    copy = training_tasks.TRAINING_TASKS["copy"]
    original = copy
    if "end_mark" in settings:
        training_tasks.TRAINING_TASKS["copy"] = replace(copy, end_mark=settings["end_mark"])
    try:
        with tempfile.TemporaryDirectory() as out:
            started = time.process_time()
            summary = train(architecture, "copy", 0, recipe, Path(out))
            seconds = time.process_time() - started
            from transformers import AutoModelForCausalLM

            from copy_tasks.models.trained_architectures import register

            register()
            model = AutoModelForCausalLM.from_pretrained(model_folder(Path(out), "copy", architecture, 0) / "final")
            model.eval()
            tokenizer = tokenizer_for("copy")
            scores = {length: exact_match(model, tokenizer, recipe, length) for length in (10, 20)}
    finally:
        training_tasks.TRAINING_TASKS["copy"] = original
    return {"architecture": architecture, "variant": name, "at 10": scores[10], "at 20": scores[20],
            "loss": summary["final_loss"], "seconds": seconds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--architectures", default="transformer-nope,transformer-rope")
    parser.add_argument("--variants", default=",".join(QUICK), help=f"of {', '.join(VARIANTS)}")
    args = parser.parse_args(argv)
    print("| architecture | variant | exact match at 10 | at 20 | final loss | CPU s |")
    print("|---|---|---:|---:|---:|---:|")
    for architecture in args.architectures.split(","):
        for name in args.variants.split(","):
            row = run(architecture, name, VARIANTS[name])
            print(f"| {architecture} | {name} | {row['at 10']:.2f} | {row['at 20']:.2f} | {row['loss']:.3f} | "
                  f"{row['seconds']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
