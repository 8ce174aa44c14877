"""Train small models from scratch on our probes, as the paper's synthetic experiments do.

Three architectures of about 3 million parameters each, trained on one shared stream of
examples (the same examples, in the same order, for each):
- `transformer-nope`: GPT-NeoX with no position information (`rotary_pct` 0);
- `transformer-rope`: the same with rotary position embeddings on every head dimension;
- `mamba2`: HF `Mamba2ForCausalLM`. Mamba-2 rather than Mamba-1: on 2 CPU cores HF's Mamba-1
  runs its reference scan step by step (28 s a training step for a 4-layer, 128-wide model on
  32 x 128 tokens), while Mamba-2's chunked scan is plain matrix products (0.44 s).

The stream mixes our own families, drawn by their own generators with training seeds far from
any evaluation seed: `random_copy` strings of a few lengths up to `copy_lengths[1]`, and
`lookup_prefix` / `lookup_suffix` in the authors' character format (`$key|string|` then the
answer; `$string|key` then the answer) with strings up to `lookup_lengths[1]`. The loss is
on what the model must write (the continuation, then the end: EOS after a copy, `.` after a
lookup answer, as the authors' format ends it). A character-level tokenizer is saved with
every checkpoint, so `lm_eval --model hf --model_args pretrained=<folder>` loads it as any
model; in it a letter after a space is one token, so that every symbol of a spaced string
(`random_copy`'s format) is one token, as subword tokenizers read it. With plain characters a
copied letter's key is two tokens back, and no transformer of the full recipe learned to copy
within its budget (tried: exact match 0 at 38,400 examples); with spaced letters as tokens the
RoPE transformer copies 10- and 20-letter strings at 90% after 16,000 examples. Training is
deterministic given the recipe's seed and torch's thread count: the data comes from our seeded
generators and torch's generator is seeded before each model is built (another thread count
sums in another order: the losses then differ by about 1e-7 after 50 steps).

    >>> example = training_example(RECIPES["quick"], 0)
    >>> example.family, example.text[: len(example.prompt)] == example.prompt
    ('random_copy', True)
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.seeding import doc_rng

TRAINING_DOMAIN = "copy-tasks-training"  # the stream's hash domain: no evaluation seed draws its docs
ARCHITECTURES = ("transformer-nope", "transformer-rope", "mamba2")
LOOKUP_OPTIONS = {"key_length": 4, "answer_length": 4, "fmt": "paper"}
PAD, EOS, UNKNOWN = "<pad>", "<eos>", "<unk>"
CHARACTERS = [chr(code) for code in range(32, 127)] + ["\n"]
SPACED_LETTERS = [" " + letter for letter in "abcdefghijklmnopqrstuvwxyz"]
CONTEXT = 4096  # tokens the saved models declare (lm-eval's max_length)


@dataclass(frozen=True)
class Recipe:
    """Everything a training run depends on."""

    examples: int  # per model
    batch_size: int
    copy_lengths: tuple[int, int]  # random_copy lengths drawn uniformly from this range
    lookup_lengths: tuple[int, int]  # lookup string lengths drawn uniformly from this range
    mix: tuple[float, float, float]  # shares of random_copy, lookup_prefix, lookup_suffix
    checkpoints: tuple[int, ...]  # examples seen when a checkpoint is saved (the last: the end)
    learning_rate: float
    warmup_steps: int
    seed: int
    hidden: int
    transformer_layers: int
    mamba_layers: int
    log_every: int = 25  # steps
    evaluation_docs: int = 50  # docs per length of every evaluation (`copy-tasks train`)

    @property
    def steps(self) -> int:
        return self.examples // self.batch_size


RECIPES = {
    # About 40 minutes on 2 CPU cores, evaluation included (see the README's figures).
    "full": Recipe(examples=51_200, batch_size=32, copy_lengths=(5, 20), lookup_lengths=(8, 30),
                   mix=(0.5, 0.25, 0.25), checkpoints=(3_200, 6_400, 12_800, 19_200, 25_600, 38_400, 51_200),
                   learning_rate=1e-3, warmup_steps=100, seed=0, hidden=256, transformer_layers=4, mamba_layers=7),
    # Seconds: for tests.
    "quick": Recipe(examples=64, batch_size=8, copy_lengths=(5, 10), lookup_lengths=(8, 12),
                    mix=(0.5, 0.25, 0.25), checkpoints=(32, 64), learning_rate=1e-3, warmup_steps=2, seed=0,
                    hidden=32, transformer_layers=2, mamba_layers=2, log_every=2, evaluation_docs=4),
}


@dataclass(frozen=True)
class Example:
    family: str
    length: int
    prompt: str
    text: str  # prompt, continuation and its end


def training_example(recipe: Recipe, index: int) -> Example:
    """Example `index` of the stream: its family and length from a generator seeded by
    (recipe seed, index), its doc from the family's own generator, both in the training domain."""
    chooser = doc_rng("training-stream", "1", 0, recipe.seed, index, domain=TRAINING_DOMAIN)
    family = FAMILIES[str(chooser.choice(["random_copy", "lookup_prefix", "lookup_suffix"], p=recipe.mix))]
    low, high = recipe.copy_lengths if family.name == "random_copy" else recipe.lookup_lengths
    length = int(chooser.integers(low, high + 1))
    options = {} if family.name == "random_copy" else LOOKUP_OPTIONS
    rng = doc_rng(family.seed_key, family.data_version, length, recipe.seed, index, domain=TRAINING_DOMAIN)
    doc = family.make_doc(rng, length, **options)
    end = EOS if family.name == "random_copy" else "."
    return Example(family.name, length, doc["prompt"], doc["prompt"] + doc["continuation"] + end)


def char_tokenizer():
    """A character-level tokenizer over printable ASCII and newline, in which a space and the
    letter after it are one token (a `PreTrainedTokenizerFast`).

    >>> tokenizer = char_tokenizer()
    >>> tokenizer.convert_ids_to_tokens(tokenizer("$ab|q r\\n")["input_ids"])
    ['$', 'a', 'b', '|', 'q', ' r', '\\n']
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate([PAD, EOS, UNKNOWN, *CHARACTERS, *SPACED_LETTERS])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token=UNKNOWN))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r" [a-z]|[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=PAD, eos_token=EOS, bos_token=EOS,
                                   unk_token=UNKNOWN, model_max_length=CONTEXT)


def encode(tokenizer, example: Example) -> tuple[list[int], list[int]]:
    """Token ids of the example, and labels: -100 on the prompt (not scored), the ids after it."""
    eos = example.text.endswith(EOS)
    body = example.text[: -len(EOS)] if eos else example.text
    ids = tokenizer(body, add_special_tokens=False)["input_ids"] + ([tokenizer.eos_token_id] if eos else [])
    prompt_length = len(tokenizer(example.prompt, add_special_tokens=False)["input_ids"])
    return ids, [-100] * prompt_length + ids[prompt_length:]


def batch(tokenizer, examples: list[Example]):
    """Right-padded input ids, attention mask and labels of a list of examples."""
    import torch

    encoded = [encode(tokenizer, example) for example in examples]
    width = max(len(ids) for ids, _ in encoded)
    ids = torch.full((len(encoded), width), tokenizer.pad_token_id)
    labels = torch.full((len(encoded), width), -100)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, (token_ids, token_labels) in enumerate(encoded):
        ids[row, : len(token_ids)] = torch.tensor(token_ids)
        labels[row, : len(token_labels)] = torch.tensor(token_labels)
        mask[row, : len(token_ids)] = 1
    return ids, mask, labels


def build_model(architecture: str, recipe: Recipe, tokenizer):
    """A freshly initialised model of `architecture` (torch's generator seeded by the recipe)."""
    import torch
    import transformers

    torch.manual_seed(recipe.seed)
    special = {"vocab_size": len(tokenizer), "pad_token_id": tokenizer.pad_token_id,
               "eos_token_id": tokenizer.eos_token_id, "bos_token_id": tokenizer.eos_token_id}
    if architecture.startswith("transformer"):
        rotary = 0.0 if architecture == "transformer-nope" else 1.0
        config = transformers.GPTNeoXConfig(
            hidden_size=recipe.hidden, num_hidden_layers=recipe.transformer_layers,
            num_attention_heads=max(1, recipe.hidden // 64), intermediate_size=4 * recipe.hidden,
            max_position_embeddings=CONTEXT, rotary_pct=rotary, **special)
        return transformers.GPTNeoXForCausalLM(config)
    if architecture == "mamba2":
        head_dim = min(64, recipe.hidden)
        config = transformers.Mamba2Config(
            hidden_size=recipe.hidden, num_hidden_layers=recipe.mamba_layers, state_size=64, expand=2,
            head_dim=head_dim, num_heads=2 * recipe.hidden // head_dim, n_groups=1, conv_kernel=4,
            chunk_size=64, **special)
        return transformers.Mamba2ForCausalLM(config)
    raise ValueError(f"architecture={architecture!r}: allowed are {', '.join(ARCHITECTURES)}")


def state_bits(model) -> int | None:
    """The bits of a Mamba-2's recurrent state at float32: layers x heads x head width x state
    size (its SSM state) plus layers x convolution width x channels (its convolution state);
    None for a model without a recurrent state."""
    config = model.config
    if config.model_type != "mamba2":
        return None
    ssm = config.num_hidden_layers * config.num_heads * config.head_dim * config.state_size
    channels = config.expand * config.hidden_size + 2 * config.n_groups * config.state_size
    return 32 * (ssm + config.num_hidden_layers * (config.conv_kernel - 1) * channels)


def learning_rate(recipe: Recipe, step: int) -> float:
    """Linear warmup, then cosine decay to a tenth of the peak.

    >>> [round(learning_rate(RECIPES["full"], step), 5) for step in (0, 99, 1600)]
    [1e-05, 0.001, 0.0001]
    """
    if step < recipe.warmup_steps:
        return recipe.learning_rate * (step + 1) / recipe.warmup_steps
    progress = min(1.0, (step - recipe.warmup_steps) / max(1, recipe.steps - recipe.warmup_steps))
    return recipe.learning_rate * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(architecture: str, recipe: Recipe, out: Path, progress: bool = True) -> dict:
    """Train one model; save checkpoints (model and tokenizer) under `out/<architecture>/` and
    append the log to `out/train_log.jsonl` (this run's). Returns the run's summary (final loss, wall time)."""
    import torch
    from tqdm import tqdm

    tokenizer = char_tokenizer()
    model = build_model(architecture, recipe, tokenizer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate, weight_decay=0.01)
    folder = out / architecture
    started, window, losses = time.perf_counter(), [], []
    model.train()
    with (out / "train_log.jsonl").open("a") as log, \
            tqdm(total=recipe.steps, desc=architecture, disable=not progress) as bar:
        for step in range(recipe.steps):
            first = step * recipe.batch_size
            examples = [training_example(recipe, first + offset) for offset in range(recipe.batch_size)]
            ids, mask, labels = batch(tokenizer, examples)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(recipe, step)
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            window.append(loss.item())
            losses.append(loss.item())
            seen = first + recipe.batch_size
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}")
            if (step + 1) % recipe.log_every == 0 or step + 1 == recipe.steps:
                log.write(json.dumps({"architecture": architecture, "step": step + 1, "examples": seen,
                                      "loss": float(np.mean(window)), "seconds": time.perf_counter() - started})
                          + "\n")
                log.flush()
                window = []
            if seen in recipe.checkpoints:
                checkpoint = folder / f"examples-{seen}"
                model.save_pretrained(checkpoint)
                tokenizer.save_pretrained(checkpoint)
    return {"architecture": architecture, "parameters": sum(p.numel() for p in model.parameters()),
            "final_loss": losses[-1], "seconds": time.perf_counter() - started, "state_bits": state_bits(model)}
