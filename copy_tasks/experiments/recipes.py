"""What a `copy-tasks train` run trains, and with what (`RECIPES`): six architectures of about 3.2
million parameters each (`ARCHITECTURES`, built by `copy_tasks.experiments.architectures`):
GPT-NeoX with no positions (NoPE), with RoPE, Bloom (ALiBi), Hard-ALiBi, Mamba-2 and an LSTM,
each trained on each task (`copy_tasks.experiments.training_tasks`) on its own, from each seed of
the recipe, for the steps of its two phases (`Phases`), at the recipe's learning rate (see
docs/training.md).
"""

from __future__ import annotations

from dataclasses import dataclass

ARCHITECTURES = ("transformer-nope", "transformer-rope", "transformer-alibi", "transformer-hard-alibi", "mamba2",
                 "lstm")


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
