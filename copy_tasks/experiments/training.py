"""The training loop of `copy-tasks train`: one model on one task from one seed (`train`), its
recipe from `copy_tasks.experiments.recipes`, its examples from
`copy_tasks.experiments.training_data`.

Training runs in two phases: single examples, one a row (a warm-up: packed rows from scratch
stalled in the measurements behind this recipe), then rows of `context` tokens packed with
examples; a task with a curriculum draws its first steps' lengths from an easier range. A task
that starts from another (`TrainingTask.starts_from`: the lookups from the copy model) loads that
model's final weights, of the same architecture, seed and width, before its first step. AdamW
with weight decay 0.1, the recipe's warm-up steps, then linear decay to 0, gradients clipped at
1: the authors' optimizer and schedule; the learning rate is the recipe's for the architecture
(see docs/training.md). The loss is the mean cross-entropy of the labelled tokens
(`answer_loss`), the output layer applied only where a token is labelled, rows computed in groups
of like length.
Training is deterministic given the seed and torch's thread count (another thread count sums in
another order).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from copy_tasks.experiments.recipes import Recipe
from copy_tasks.experiments.training_data import packed_batch, single_batch, tokenizer_for, training_example
from copy_tasks.experiments.training_tasks import TRAINING_TASKS


def learning_rate(recipe: Recipe, step: int, steps: int, architecture: str = "") -> float:
    """Linear warm-up over `warmup_steps`, then linear decay to 0 at `steps` (the authors' schedule),
    from the architecture's peak (`Recipe.learning_rate_of`).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> [round(learning_rate(RECIPES["full"], step, 550), 5) for step in (0, 99, 324, 549)]
    [1e-05, 0.001, 0.0005, 0.0]
    """
    peak = recipe.learning_rate_of(architecture)
    if step < recipe.warmup_steps:
        return peak * (step + 1) / recipe.warmup_steps
    return peak * max(0.0, (steps - 1 - step) / max(1, steps - 1 - recipe.warmup_steps))


LENGTH_GROUPS = 4  # groups of rows of like length a batch is computed in (`answer_loss`)


def answer_loss(model, ids, mask, labels, length_groups: int = LENGTH_GROUPS, own_forward: bool = False):
    """The mean cross-entropy of the labelled tokens (transformers' causal-LM loss) of a batch of
    right-padded rows (`training_data.single_batch`; `labels` -100 where nothing is predicted).

    Every model here is causal, so no token of a row depends on the padding after it: the rows are
    computed in `length_groups` groups of like length, each cut to its longest row, and the summed
    losses divided by the batch's labelled tokens. The same loss and gradients as the padded batch
    (tested), on fewer tokens: MQAR's rows of 4 to 32 pairs run from 13 to 97 tokens.
    `own_forward`: Mamba-2 through transformers' forward too (`summed_answer_loss`; for
    benchmarks/bench_training_step.py, which measures what each change saves).

        >>> import torch
        >>> answer_loss(None, torch.ones(1, 3), torch.tensor([[0, 1, 1]]), torch.ones(1, 3))
        Traceback (most recent call last):
        ...
        ValueError: answer_loss: rows must be right-padded (a mask of 1s, then 0s); row 0 is [0, 1, 1]
    """
    import torch

    lengths = mask.sum(dim=1)
    right_padded = (torch.arange(mask.shape[1], device=mask.device)[None] < lengths[:, None]).to(mask.dtype)
    if not torch.equal(mask, right_padded):
        row = int((mask != right_padded).any(dim=1).nonzero()[0])
        raise ValueError(f"answer_loss: rows must be right-padded (a mask of 1s, then 0s); row {row} is "
                         f"{mask[row].tolist()}")
    summed = 0.0
    for rows in torch.argsort(lengths, stable=True).tensor_split(length_groups):
        if len(rows):
            longest = int(lengths[rows].max())
            summed = summed + summed_answer_loss(model, ids[rows, :longest], mask[rows, :longest],
                                                 labels[rows, :longest], own_forward)
    return summed / (labels[:, 1:] != -100).sum()


def summed_answer_loss(model, ids, mask, labels, own_forward: bool = False):
    """The summed cross-entropy of the labelled tokens, the output layer applied only at the
    positions that predict one: most positions of a row are its prompt, and at MQAR's vocabulary
    of 1,149 tokens the output layer over every position was most of a step's time. Mamba-2 runs
    `copy_tasks.experiments.mamba2_training` (transformers' function, faster on a CPU) unless
    `own_forward`; any other model its own forward, its output embeddings taking the hidden
    states of those positions alone (a hook for the one pass)."""
    import torch

    from copy_tasks.experiments.mamba2_training import is_mamba2, last_hidden_states

    predicts = labels[:, 1:] != -100  # position t predicts token t + 1
    selected = torch.nn.functional.pad(predicts, (0, 1), value=False)
    head = model.get_output_embeddings()
    if is_mamba2(model) and not own_forward:
        hidden = last_hidden_states(model, ids, mask)[selected]
        logits = head(hidden.to(head.weight.dtype))
    else:
        hook = head.register_forward_pre_hook(lambda module, inputs: (inputs[0][selected], *inputs[1:]))
        try:
            logits = model(input_ids=ids, attention_mask=mask).logits
        finally:
            hook.remove()
    return torch.nn.functional.cross_entropy(logits.float(), labels[:, 1:][predicts], reduction="sum")


def model_folder(out: Path, task: str, architecture: str, seed: int, width: int | None = None) -> Path:
    """`<task>/<architecture>/seed-<N>`; a grid recipe's model `<task>/<architecture>-w<width>/seed-<N>`.

    >>> model_folder(Path("run"), "mqar", "lstm", 1, 64).as_posix()
    'run/mqar/lstm-w64/seed-1'
    """
    return out / task / (architecture if width is None else f"{architecture}-w{width}") / f"seed-{seed}"


class ExampleStream:
    """The seed's examples of a task in order (`training_example`), their lengths drawn from
    `lengths`, which a curriculum changes between steps."""

    def __init__(self, recipe: Recipe, task: str, seed: int):
        self.recipe, self.task, self.seed, self.index = recipe, task, seed, 0
        self.lengths = TRAINING_TASKS[task].trained_lengths(recipe)

    def __iter__(self):
        return self

    def __next__(self):
        self.index += 1
        return training_example(self.recipe, self.task, self.seed, self.index - 1, self.lengths)


def starting_weights(model, source: Path) -> None:
    """Load the final weights of the model a task starts from (`TrainingTask.starts_from`) into
    `model`, which must be the same architecture at the same shapes (refused otherwise)."""
    if not (source / "config.json").is_file():
        raise FileNotFoundError(f"{source}: the model this one starts from is not trained (no config.json)")
    trained = type(model).from_pretrained(source)
    model.load_state_dict(trained.state_dict())


def train(architecture: str, task: str, seed: int, recipe: Recipe, out: Path, progress: bool = False,
          width: int | None = None) -> dict:
    """Train one model on one task (at `width`, a grid recipe's); save it (model and tokenizer)
    as `final/` and, for a task whose checkpoints are scored (the copy task's), its checkpoints
    as `step-<N>/` under `model_folder(...)`, and write its log (`log.jsonl`: loss, examples
    seen, wall time). Trains on the GPU where torch has one. Returns its summary."""
    import torch
    from tqdm import tqdm

    from copy_tasks.experiments.architectures import build_model, memory, parameters

    declared = TRAINING_TASKS[task]
    tokenizer = tokenizer_for(task)
    model = build_model(architecture, recipe, tokenizer, seed, width)
    started_from = None
    if declared.starts_from is not None:
        started_from = model_folder(out, declared.starts_from, architecture, seed, width) / "final"
        starting_weights(model, started_from)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate_of(architecture),
                                  weight_decay=recipe.weight_decay)
    phases, saves_checkpoints = recipe.phases_of(task, architecture), declared.checkpoints_scored_on is not None
    folder = model_folder(out, task, architecture, seed, width)
    folder.mkdir(parents=True, exist_ok=True)
    stream = ExampleStream(recipe, task, seed)
    trained_lengths = stream.lengths
    started, seen, window, checkpoints, curve = time.perf_counter(), 0, [], {}, []
    model.train()
    with (folder / "log.jsonl").open("w") as log, tqdm(total=phases.steps, desc=f"{task}/{architecture}/{seed}",
                                                       disable=not progress) as bar:
        for step in range(phases.steps):
            stream.lengths = phases.lengths_at(step, trained_lengths)
            if step < phases.single_steps:
                ids, mask, labels = single_batch(tokenizer, [next(stream) for _ in range(recipe.batch_size)])
                whole = recipe.batch_size
            else:
                ids, mask, labels, whole = packed_batch(tokenizer, stream, recipe.packed_rows, recipe.context)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(recipe, step, phases.steps, architecture)
            loss = answer_loss(model, ids.to(device), mask.to(device), labels.to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            seen += whole
            window.append(loss.item())
            bar.update(1)
            if (step + 1) % recipe.log_every == 0 or step + 1 == phases.steps:
                curve.append((step + 1, float(np.mean(window))))
                log.write(json.dumps({"step": step + 1, "examples": seen, "loss": curve[-1][1],
                                      "phase": "single" if step < phases.single_steps else "packed",
                                      "lengths": list(stream.lengths),
                                      "seconds": time.perf_counter() - started}) + "\n")
                log.flush()
                window = []
            if saves_checkpoints and step + 1 in recipe.checkpoint_steps and step + 1 < phases.steps:
                save(model, tokenizer, folder / f"step-{step + 1}")
                checkpoints[step + 1] = seen
    save(model, tokenizer, folder / "final")
    checkpoints[phases.steps] = seen
    return {"architecture": architecture, "task": task, "seed": seed, "width": width,
            "hidden_size": model.config.hidden_size, "parameters": parameters(model),
            "final_loss": loss.item(), "seconds": time.perf_counter() - started, "examples": seen,
            "checkpoints": checkpoints, **memory_columns(memory(model)),
            "started_from": None if started_from is None else started_from.relative_to(out).as_posix(),
            "loss_curve": curve}


def memory_columns(kept) -> dict:
    """A training summary's `state_bits` (what does not grow: None where nothing is fixed, as for a
    plain transformer) and `state_bits_per_token` (what grows)."""
    if kept is None:
        return {"state_bits": None, "state_bits_per_token": None}
    return {"state_bits": kept.state_bits or None, "state_bits_per_token": kept.bits_per_token}


def save(model, tokenizer, folder: Path) -> None:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


