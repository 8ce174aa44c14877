"""One training step of the `mqar` recipe's models, before and after what made them faster.

`copy-tasks train --recipe mqar` trains 20 models of 1,500 steps of 64 docs on one CPU core
each. Two changes cut a step's time, and this measures each, side by side, on the same batches
(docs of 4 to 32 pairs, the recipe's second phase), one torch thread:
- `padded`: the whole right-padded batch through the model's own forward (transformers' pure-PyTorch
  Mamba-2), the step before;
- `groups`: the rows in 4 groups of like length, each cut to its longest row (`answer_loss`);
- `+ own scan` (Mamba-2 only): and Mamba-2's forward in batched matrix products
  (`copy_tasks.experiments.mamba2_training`), the step `copy-tasks train` takes now.
It prints seconds a step (median of the measured steps) and each one's ratio to `padded`.
Run: `python benchmarks/bench_training_step.py [--steps N]` (about 30 seconds).
"""

from __future__ import annotations

import argparse
import statistics
import time

MODELS = (("transformer-rope", 64), ("transformer-conv", 64), ("lstm", 64), ("mamba2-state8", 64), ("mamba2", 64))


def step_seconds(model, batches, length_groups: int, own_forward: bool) -> float:
    import torch

    from copy_tasks.experiments.training import answer_loss

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    for ids, mask, labels in batches:
        started = time.perf_counter()
        answer_loss(model, ids, mask, labels, length_groups, own_forward).backward()
        optimizer.step()
        optimizer.zero_grad()
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])  # the first step warms up


def main(argv: list[str] | None = None) -> None:
    import torch

    from copy_tasks.experiments.architectures import build_model
    from copy_tasks.experiments.recipes import RECIPES
    from copy_tasks.experiments.training import LENGTH_GROUPS, ExampleStream
    from copy_tasks.experiments.training_data import single_batch, tokenizer_for

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    recipe, tokenizer = RECIPES["mqar"], tokenizer_for("mqar")
    stream = ExampleStream(recipe, "mqar", 0)
    batches = [single_batch(tokenizer, [next(stream) for _ in range(recipe.batch_size)]) for _ in range(args.steps)]
    lengths = torch.cat([mask.sum(dim=1) for _, mask, _ in batches]).float()
    print(f"mqar training step, batch {recipe.batch_size}, rows of {int(lengths.min())} to {int(lengths.max())} "
          f"tokens (mean {lengths.mean():.0f}), one thread, median of {args.steps - 1} steps")
    print(f"{'model':<22}{'padded s':>10}{'groups s':>10}{'ratio':>7}{'+ own scan s':>14}{'ratio':>7}")
    for architecture, width in MODELS:
        model = build_model(architecture, recipe, tokenizer, 0, width)
        padded = step_seconds(model, batches, 1, own_forward=True)
        grouped = step_seconds(model, batches, LENGTH_GROUPS, own_forward=True)
        line = f"{architecture:<22}{padded:>10.3f}{grouped:>10.3f}{padded / grouped:>7.2f}"
        if architecture.startswith("mamba2"):
            scanned = step_seconds(model, batches, LENGTH_GROUPS, own_forward=False)
            line += f"{scanned:>14.3f}{padded / scanned:>7.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
