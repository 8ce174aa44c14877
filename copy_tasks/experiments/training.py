"""Train small models from scratch as the paper's synthetic experiments do: one model per task,
the authors' character formats, contexts packed with examples.

Six architectures of about 3.2 million parameters each (`ARCHITECTURES`), built by
`copy_tasks.experiments.architectures`: GPT-NeoX with no positions (NoPE), with RoPE, Bloom
(ALiBi), Hard-ALiBi, Mamba-2 and an LSTM. Each is trained on each task of `TASKS` on its own
(the authors train one model per task), from each seed of the recipe:
- `copy`: `$<letters>|<letters>.` (`random_copy` in its `paper` format);
- `lookup_prefix`: `$<key>|<letters>|<answer>.`; `lookup_suffix`: `$<letters>|<key><answer>.`
  (the lookup families in their `paper` format: key 4 letters, answer 4);
- `mqar`: Zoology's multi-query associative recall (`mqar` in its `zoology` format: K pairs of a
  key symbol and a value symbol, then 8 of the keys, each followed by its value), the loss on
  every value (as Zoology's); not one of the paper's tasks, the probe architecture papers report;
strings uniform over a-z, drawn by our own generators in a hash domain of their own (a
training stream is no evaluation seed's stream; strings of 5 letters can still coincide by
chance). The loss is on what the model must write and the `.`
after it. Training runs in two phases: single examples, one a row (a warm-up: packed rows from
scratch stalled in the measurements behind this recipe), then rows of `context` tokens packed
with examples end to end, the last cut where the row ends (unscored), as the authors pack.
AdamW with weight decay 0.1, 100 warm-up steps, then linear decay to 0, gradients clipped at 1:
the authors' optimizer and schedule; the learning rate is the recipe's (see docs/training.md).

A character tokenizer is saved with every checkpoint, so `lm_eval --model hf --model_args
pretrained=<folder>` loads it as any model. Training is deterministic given the seed and
torch's thread count (another thread count sums in another order).

    >>> example = training_example(RECIPES["quick"], "copy", seed=0, index=0)
    >>> example.text == example.prompt + example.answer + "." and example.prompt.startswith("$")
    True
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from copy_tasks.experiments.architectures import CONTEXT
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.seeding import doc_rng

TRAINING_DOMAIN = "copy-tasks-training"  # the stream's hash domain, apart from every evaluation seed's
ARCHITECTURES = ("transformer-nope", "transformer-rope", "transformer-alibi", "transformer-hard-alibi", "mamba2",
                 "lstm")
# Each task: the family whose generator draws its docs, in the authors' format.
TASKS = {"copy": "random_copy", "lookup_prefix": "lookup_prefix", "lookup_suffix": "lookup_suffix", "mqar": "mqar"}
PAPER_TASKS = ("copy", "lookup_prefix", "lookup_suffix")  # the paper's; a run recorded without tasks ran these
LOOKUP_OPTIONS = {"key_length": 4, "answer_length": 4, "fmt": "paper"}
COPY_OPTIONS = {"fmt": "paper"}
MQAR_OPTIONS = {"fmt": "zoology"}
TASK_OPTIONS = {"copy": COPY_OPTIONS, "lookup_prefix": LOOKUP_OPTIONS, "lookup_suffix": LOOKUP_OPTIONS,
                "mqar": MQAR_OPTIONS}
PAD, EOS, UNKNOWN = "<pad>", "<eos>", "<unk>"
END = "."  # the authors' end of an answer
CHARACTERS = [chr(code) for code in range(32, 127)] + ["\n"]
SPACED_LETTERS = [" " + letter for letter in "abcdefghijklmnopqrstuvwxyz"]


@dataclass(frozen=True)
class Phases:
    """Steps of one task's training: single examples a row, then packed rows."""

    single_steps: int
    packed_steps: int

    @property
    def steps(self) -> int:
        return self.single_steps + self.packed_steps


@dataclass(frozen=True)
class Recipe:
    """Everything a training run depends on."""

    phases: dict  # task -> Phases
    batch_size: int  # rows of single examples a step
    packed_rows: int  # rows a packed step
    context: int  # tokens a packed row
    copy_lengths: tuple[int, int]  # copy string lengths drawn uniformly from this range
    lookup_lengths: tuple[int, int]  # lookup string lengths drawn uniformly from this range
    seeds: tuple[int, ...]
    checkpoint_steps: tuple[int, ...]  # steps after which a copy model is saved (for examples needed)
    learning_rate: float
    warmup_steps: int
    hidden: int
    transformer_layers: int
    attention_heads: int
    masked_heads: int  # Hard-ALiBi's hard-windowed heads per layer
    mamba_layers: int
    lstm_layers: int
    mqar_pairs: tuple[int, int] = (8, 32)  # mqar pair counts drawn uniformly from this range
    weight_decay: float = 0.1
    log_every: int = 25  # steps
    evaluation_docs: int = 50  # docs per length of every evaluation (`copy-tasks train`)
    workers: int = 2  # training jobs at once, one torch thread each

    def lengths(self, task: str) -> tuple[int, int]:
        return {"copy": self.copy_lengths, "mqar": self.mqar_pairs}.get(task, self.lookup_lengths)


def _phases(copy: tuple[int, int], lookup: tuple[int, int], mqar: tuple[int, int]) -> dict:
    return {"copy": Phases(*copy), "lookup_prefix": Phases(*lookup), "lookup_suffix": Phases(*lookup),
            "mqar": Phases(*mqar)}


RECIPES = {
    # About 90 minutes on 2 CPU cores, evaluation included (docs/training.md has the figures).
    "full": Recipe(phases=_phases((300, 150), (150, 50), (150, 50)), batch_size=32, packed_rows=4, context=512,
                   copy_lengths=(5, 20), lookup_lengths=(8, 30), seeds=(0, 1),
                   checkpoint_steps=(100, 200, 300), learning_rate=1e-3, warmup_steps=100,
                   hidden=256, transformer_layers=4, attention_heads=8, masked_heads=4, mamba_layers=7,
                   lstm_layers=6),
    # A GPU: the paper's lengths (copies to 50), longer training, the same models.
    "gpu": Recipe(phases=_phases((2000, 3000), (2000, 1000), (2000, 2000)), batch_size=64, packed_rows=16, context=1024,
                  copy_lengths=(5, 50), lookup_lengths=(8, 30), seeds=(0, 1, 2),
                  checkpoint_steps=(100, 250, 500, 1000, 2000, 3000), learning_rate=1e-3, warmup_steps=100,
                  hidden=256, transformer_layers=4, attention_heads=8, masked_heads=4, mamba_layers=7,
                  lstm_layers=6, workers=1, evaluation_docs=100),
    # For tests: trains in seconds; scoring is most of it (`copy-tasks train --quick`, six architectures: 25
    # lm-eval runs, about 3 minutes of CPU, 9 on a busy 2-core machine; the tests train one or two).
    "quick": Recipe(phases=_phases((4, 2), (3, 1), (3, 1)), batch_size=4, packed_rows=2, context=64,
                    copy_lengths=(5, 10), lookup_lengths=(8, 12), seeds=(0,), checkpoint_steps=(3,),
                    learning_rate=1e-3, warmup_steps=2, hidden=32, transformer_layers=2, attention_heads=2,
                    masked_heads=1, mamba_layers=2, lstm_layers=2, mqar_pairs=(8, 10), log_every=2, evaluation_docs=4,
                    workers=1),
}


@dataclass(frozen=True)
class Example:
    task: str
    length: int
    prompt: str
    answer: str  # what the model must write
    text: str  # prompt, answer and END
    # A doc of several questions (`mqar`): each question's prompt and answer, the last the
    # example's; every answer is scored. Empty: the one question (prompt, answer).
    questions: tuple[tuple[str, str], ...] = ()

    @property
    def scored(self) -> tuple[tuple[str, str], ...]:
        return self.questions or ((self.prompt, self.answer),)


def training_example(recipe: Recipe, task: str, seed: int, index: int) -> Example:
    """Example `index` of the seed's stream of `task`: its length from a generator seeded by
    (task, seed, index), its doc from the family's own generator, both in the training domain."""
    family = FAMILIES[TASKS[task]]
    chooser = doc_rng("training-stream", "2", 0, seed, index, domain=f"{TRAINING_DOMAIN}/{task}")
    low, high = recipe.lengths(task)
    length = int(chooser.integers(low, high + 1))
    rng = doc_rng(family.data_name, family.data_version, length, seed, index, domain=f"{TRAINING_DOMAIN}/{task}")
    doc = family.draw_doc(rng, length, **TASK_OPTIONS[task])
    questions = tuple((question["prompt"], question["continuation"]) for question in family.request_docs(doc))
    prompt, answer = questions[-1]
    return Example(task, length, prompt, answer, prompt + answer + END, questions if len(questions) > 1 else ())


def char_tokenizer(symbols: tuple[str, ...] = ()):
    """A character-level tokenizer over printable ASCII and newline, in which a space and the
    letter after it are one token (a `PreTrainedTokenizerFast`); the authors' formats have no
    spaces, so each of their characters is one token. `symbols`: more one-character tokens
    (Zoology's key and value symbols for the `mqar` models: `tokenizer_for`).

    >>> tokenizer = char_tokenizer()
    >>> tokenizer.convert_ids_to_tokens(tokenizer("$ab|q r\\n")["input_ids"])
    ['$', 'a', 'b', '|', 'q', ' r', '\\n']
    >>> len(tokenizer_for("mqar")) - len(tokenizer), tokenizer_for("mqar")("\u4e00\uac00")["input_ids"]
    (1024, [125, 637])
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate([PAD, EOS, UNKNOWN, *CHARACTERS, *SPACED_LETTERS,
                                                              *symbols])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token=UNKNOWN))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r" [a-z]|[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=PAD, eos_token=EOS, bos_token=EOS,
                                   unk_token=UNKNOWN, model_max_length=CONTEXT)


def tokenizer_for(task: str):
    """The tokenizer of a task's models: `char_tokenizer`, with Zoology's symbols for `mqar`."""
    if task != "mqar":
        return char_tokenizer()
    from copy_tasks.probes.families.mqar import ZOOLOGY_KEYS, ZOOLOGY_VALUES

    return char_tokenizer(ZOOLOGY_KEYS + ZOOLOGY_VALUES)


def encode(tokenizer, example: Example) -> tuple[list[int], list[int]]:
    """Token ids of the example, and labels: the ids of every answer and of the END after the
    last, -100 elsewhere (prompts are not scored).

    >>> ids, labels = encode(char_tokenizer(), Example("copy", 2, "$ab|", "ab", "$ab|ab."))
    >>> len(ids), sum(label != -100 for label in labels)
    (7, 3)
    >>> two = Example("x", 2, "a1b", "2", "a1b2.", questions=(("a", "1"), ("a1b", "2")))
    >>> ids, labels = encode(char_tokenizer(), two)
    >>> [label == token for label, token in zip(labels, ids)]  # a, 1, b, 2, .
    [False, True, False, True, True]
    """
    def length(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    ids = tokenizer(example.text, add_special_tokens=False)["input_ids"]
    labels = [-100] * len(ids)
    for prompt, answer in example.scored:
        start, end = length(prompt), length(prompt + answer)
        labels[start:end] = ids[start:end]
    labels[end:] = ids[end:]  # the END after the last answer
    return ids, labels


def _tensors(tokenizer, rows: list[tuple[list[int], list[int]]]):
    import torch

    width = max(len(ids) for ids, _ in rows)
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    labels = torch.full((len(rows), width), -100)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for row, (token_ids, token_labels) in enumerate(rows):
        ids[row, : len(token_ids)] = torch.tensor(token_ids)
        labels[row, : len(token_labels)] = torch.tensor(token_labels)
        mask[row, : len(token_ids)] = 1
    return ids, mask, labels


def single_batch(tokenizer, examples: list[Example]):
    """Right-padded input ids, attention mask and labels, one example a row."""
    return _tensors(tokenizer, [encode(tokenizer, example) for example in examples])


def packed_row(tokenizer, examples, context: int) -> tuple[list[int], list[int], int]:
    """One row of `context` tokens packed with examples from the iterator `examples`, end to
    end; the example that does not fit is cut at the row's end and not scored. Returns ids,
    labels and the number of whole examples.

    >>> stream = iter([Example("copy", 2, "$ab|", "ab", "$ab|ab.")] * 3)
    >>> ids, labels, whole = packed_row(char_tokenizer(), stream, 10)
    >>> len(ids), whole, sum(label != -100 for label in labels)
    (10, 1, 3)
    """
    ids, labels, whole = [], [], 0
    while len(ids) < context:
        example_ids, example_labels = encode(tokenizer, next(examples))
        room = context - len(ids)
        if len(example_ids) > room:
            ids += example_ids[:room]
            labels += [-100] * room
            break
        ids += example_ids
        labels += example_labels
        whole += 1
    return ids, labels, whole


def packed_batch(tokenizer, examples, rows: int, context: int):
    """`rows` packed rows (`packed_row`) and the whole examples they hold."""
    packed = [packed_row(tokenizer, examples, context) for _ in range(rows)]
    return (*_tensors(tokenizer, [(ids, labels) for ids, labels, _ in packed]),
            sum(whole for _, _, whole in packed))


def learning_rate(recipe: Recipe, step: int, steps: int) -> float:
    """Linear warm-up over `warmup_steps`, then linear decay to 0 at `steps` (the authors' schedule).

    >>> [round(learning_rate(RECIPES["full"], step, 550), 5) for step in (0, 99, 324, 549)]
    [1e-05, 0.001, 0.0005, 0.0]
    """
    if step < recipe.warmup_steps:
        return recipe.learning_rate * (step + 1) / recipe.warmup_steps
    return recipe.learning_rate * max(0.0, (steps - 1 - step) / max(1, steps - 1 - recipe.warmup_steps))


def model_folder(out: Path, task: str, architecture: str, seed: int) -> Path:
    return out / task / architecture / f"seed-{seed}"


def train(architecture: str, task: str, seed: int, recipe: Recipe, out: Path, progress: bool = False) -> dict:
    """Train one model on one task; save it (model and tokenizer) as `final/` and the copy
    models' checkpoints as `step-<N>/` under `model_folder(...)`, and write its log
    (`log.jsonl`: loss, examples seen, wall time). Returns its summary."""
    import torch
    from tqdm import tqdm

    from copy_tasks.experiments.architectures import build_model, parameters, state_bits

    tokenizer = tokenizer_for(task)
    model = build_model(architecture, recipe, tokenizer, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate, weight_decay=recipe.weight_decay)
    phases = recipe.phases[task]
    folder = model_folder(out, task, architecture, seed)
    folder.mkdir(parents=True, exist_ok=True)
    stream = (training_example(recipe, task, seed, index) for index in range(10**12))
    started, seen, window, checkpoints = time.perf_counter(), 0, [], {}
    model.train()
    with (folder / "log.jsonl").open("w") as log, tqdm(total=phases.steps, desc=f"{task}/{architecture}/{seed}",
                                                       disable=not progress) as bar:
        for step in range(phases.steps):
            if step < phases.single_steps:
                ids, mask, labels = single_batch(tokenizer, [next(stream) for _ in range(recipe.batch_size)])
                whole = recipe.batch_size
            else:
                ids, mask, labels, whole = packed_batch(tokenizer, stream, recipe.packed_rows, recipe.context)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(recipe, step, phases.steps)
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            seen += whole
            window.append(loss.item())
            bar.update(1)
            if (step + 1) % recipe.log_every == 0 or step + 1 == phases.steps:
                log.write(json.dumps({"step": step + 1, "examples": seen, "loss": float(np.mean(window)),
                                      "phase": "single" if step < phases.single_steps else "packed",
                                      "seconds": time.perf_counter() - started}) + "\n")
                log.flush()
                window = []
            if task == "copy" and step + 1 in recipe.checkpoint_steps and step + 1 < phases.steps:
                save(model, tokenizer, folder / f"step-{step + 1}")
                checkpoints[step + 1] = seen
    save(model, tokenizer, folder / "final")
    checkpoints[phases.steps] = seen
    return {"architecture": architecture, "task": task, "seed": seed, "parameters": parameters(model),
            "final_loss": loss.item(), "seconds": time.perf_counter() - started, "examples": seen,
            "checkpoints": checkpoints, "state_bits": state_bits(model)}


def save(model, tokenizer, folder: Path) -> None:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


@dataclass(frozen=True)
class Job:
    """One model to train: an architecture on a task from a seed."""

    architecture: str
    task: str
    seed: int

    def folder(self, out: Path) -> Path:
        return model_folder(out, self.task, self.architecture, self.seed)


SUMMARY = "summary.json"  # in a model's folder once its training has finished
# Relative CPU cost of a step, measured on 2 cores (one thread): the longest jobs start first.
STEP_COST = {"transformer-nope": 0.7, "transformer-rope": 0.7, "transformer-alibi": 1.2,
             "transformer-hard-alibi": 0.65, "mamba2": 1.6, "lstm": 0.45}


def jobs(recipe: Recipe, architectures, tasks=PAPER_TASKS) -> list[Job]:
    """Every (architecture, task, seed) of a run, the costliest first.

    >>> [job.architecture for job in jobs(RECIPES["quick"], ("lstm", "mamba2"), ("copy",))]
    ['mamba2', 'lstm']
    """
    every = [Job(architecture, task, seed) for task in tasks for architecture in architectures
             for seed in recipe.seeds]
    return sorted(every, key=lambda job: -STEP_COST[job.architecture] * recipe.phases[job.task].steps)


def finished(job: Job, out: Path, recipe_name: str) -> dict | None:
    """The summary of a job this recipe already trained into `out`, or None."""
    try:
        summary = json.loads((job.folder(out) / SUMMARY).read_text())
    except (OSError, ValueError):
        return None
    complete = (job.folder(out) / "final" / "config.json").is_file()
    return summary if complete and isinstance(summary, dict) and summary.get("recipe") == recipe_name else None


def run_job(arguments) -> dict:
    """Train one job in this process on one torch thread; write its summary (a pool's worker)."""
    import torch

    job, recipe_name, out = arguments
    torch.set_num_threads(1)
    summary = train(job.architecture, job.task, job.seed, RECIPES[recipe_name], out) | {"recipe": recipe_name}
    (job.folder(out) / SUMMARY).write_text(json.dumps(summary))
    return summary


def train_all(recipe_name: str, out: Path, architectures, report=print, tasks=PAPER_TASKS) -> list[dict]:
    """Train every job of the run not already finished in `out`, `workers` at once; the summaries."""
    import multiprocessing

    recipe = RECIPES[recipe_name]
    summaries, pending = [], []
    for job in jobs(recipe, architectures, tasks):
        done = finished(job, out, recipe_name)
        if done is None:
            pending.append(job)
        else:
            summaries.append(done)
    if summaries:
        report(f"{len(summaries)} of {len(summaries) + len(pending)} models already trained in {out}: kept")
    arguments = [(job, recipe_name, out) for job in pending]
    if recipe.workers > 1 and len(pending) > 1:
        with multiprocessing.get_context("spawn").Pool(recipe.workers) as pool:
            for summary in pool.imap_unordered(run_job, arguments):
                report(f"{summary['task']}/{summary['architecture']}/seed {summary['seed']}: final loss "
                       f"{summary['final_loss']:.4f} after {summary['seconds']:.0f} s")
                summaries.append(summary)
    else:
        for argument in arguments:
            summaries.append(run_job(argument))
    return summaries
