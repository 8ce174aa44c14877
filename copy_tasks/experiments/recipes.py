"""What a `copy-tasks train` run trains, and with what (`RECIPES`): six architectures
(`ARCHITECTURES`, built by `copy_tasks.experiments.architectures`): GPT-NeoX with no positions
(NoPE), with RoPE, Bloom (ALiBi), Hard-ALiBi, Mamba-2 and an LSTM, each trained on each task of
the recipe (`copy_tasks.experiments.training_tasks`) on its own, from each seed of the recipe, at
each of its widths, for the steps of its two phases (`Phases`, with an optional curriculum), at
the recipe's learning rate (see docs/training.md).

- `full`: the paper's tasks on 2 CPU cores, models of about 3.2 million parameters;
- `mqar`: Zoology's multi-query associative recall, 2-layer models at widths 32 and 64;
- `gpu`: the paper's tasks at the paper's lengths, sized for a few minutes of one GPU;
- `quick`: tiny models, for tests.

    >>> RECIPES["mqar"].tasks(), RECIPES["full"].tasks()
    (('mqar',), ('copy', 'lookup_prefix', 'lookup_suffix'))
    >>> RECIPES["mqar"].phases["mqar"].lengths_at(0, (4, 64)), RECIPES["mqar"].phases["mqar"].lengths_at(5000, (4, 64))
    ((2, 8), (4, 64))
"""

from __future__ import annotations

from dataclasses import dataclass

ARCHITECTURES = ("transformer-nope", "transformer-rope", "transformer-alibi", "transformer-hard-alibi", "mamba2",
                 "lstm")


@dataclass(frozen=True)
class Phases:
    """Steps of one task's training: single examples a row, then packed rows; with a curriculum,
    the first `easy_steps` steps draw their lengths from `easy_lengths`, the others from the
    task's training lengths."""

    single_steps: int
    packed_steps: int
    easy_steps: int = 0
    easy_lengths: tuple[int, int] | None = None

    @property
    def steps(self) -> int:
        return self.single_steps + self.packed_steps

    def lengths_at(self, step: int, trained: tuple[int, int]) -> tuple[int, int]:
        """The range a step draws its examples' lengths from."""
        return self.easy_lengths if step < self.easy_steps and self.easy_lengths is not None else trained


@dataclass(frozen=True)
class Recipe:
    """Everything a training run depends on."""

    phases: dict  # task -> Phases: the tasks this recipe trains (`tasks`)
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
    lstm_hidden: int | None = None  # the LSTM's width, where not `hidden` (fewer, wider layers)
    widths: tuple[int, ...] = ()  # a grid: every architecture trained at each width (LSTM too); () `hidden` only
    architectures: tuple[str, ...] = ARCHITECTURES  # what `--models` trains unless told
    mqar_pairs: tuple[int, int] = (8, 32)  # mqar pair counts drawn uniformly from this range
    weight_decay: float = 0.1
    log_every: int = 25  # steps
    evaluation_docs: int = 50  # docs per length of every evaluation (`copy-tasks train`)
    workers: int = 2  # training jobs at once, one torch thread each

    def tasks(self) -> tuple[str, ...]:
        """The tasks a run of this recipe trains unless told: the paper's three where it has them."""
        paper = ("copy", "lookup_prefix", "lookup_suffix")
        return paper if set(paper) <= set(self.phases) else tuple(self.phases)

    def grid(self) -> tuple[int | None, ...]:
        """The widths a job is trained at: None (`hidden`, the job named without a width) without a grid."""
        return self.widths or (None,)


def _paper(copy: Phases, lookup: Phases) -> dict:
    return {"copy": copy, "lookup_prefix": lookup, "lookup_suffix": lookup}


PAPER_HEADS = {"attention_heads": 16, "masked_heads": 8}  # the authors': 16 heads, 8 windowed (1 to 8 keys)
# The LSTM as one or two wide layers (the authors' and common practice), at the transformers' parameters:
# 2 layers of 440 have 3.2 million at the character vocabulary, as 4 transformer layers of 256.
PAPER_LSTM = {"lstm_layers": 2, "lstm_hidden": 440}

RECIPES = {
    # The paper's tasks on 2 CPU cores (docs/training.md has the figures): copies packed into rows of 2,048
    # tokens (the authors' length-generalisation rows), lookups started from their seed's copy model.
    "full": Recipe(phases=_paper(Phases(300, 300), Phases(150, 50)), batch_size=32, packed_rows=1, context=2048,
                   copy_lengths=(5, 20), lookup_lengths=(8, 30), seeds=(0, 1),
                   checkpoint_steps=(100, 200, 300, 450), learning_rate=1e-3, warmup_steps=100,
                   hidden=256, transformer_layers=4, mamba_layers=7, **PAPER_HEADS, **PAPER_LSTM),
    # Zoology's MQAR grid on 2 CPU cores: attention, Mamba-2 and the LSTM, 2 layers at widths 32 and 64, every key
    # asked; a curriculum of 2 to 8 pairs first (from flat: the first steps sat at 1 / pairs). Sized to the 2 cores
    # (1.5 core-hours of training, measured; width 128 took 2 s a step for attention and 3 s for Mamba-2).
    "mqar": Recipe(phases={"mqar": Phases(2000, 0, easy_steps=600, easy_lengths=(2, 8))}, batch_size=32,
                   packed_rows=1, context=512, copy_lengths=(5, 20), lookup_lengths=(8, 30), seeds=(0, 1),
                   checkpoint_steps=(), learning_rate=1e-3, warmup_steps=100, hidden=64, transformer_layers=2,
                   attention_heads=4, masked_heads=2, mamba_layers=2, lstm_layers=2, widths=(32, 64),
                   architectures=("transformer-rope", "mamba2", "lstm"), mqar_pairs=(4, 64), log_every=100,
                   workers=1),
    # One GPU, a few minutes: Hard-ALiBi, Mamba-2 and the LSTM to about a million copy examples (the paper's
    # Fig. 1a puts Mamba's copying there), copies to 50 letters as the paper's; not run on 2 CPU cores.
    "gpu": Recipe(phases=_paper(Phases(300, 1800), Phases(200, 200)), batch_size=64, packed_rows=16, context=2048,
                  copy_lengths=(5, 50), lookup_lengths=(8, 30), seeds=(0,),
                  checkpoint_steps=(100, 300, 600, 1200), learning_rate=1e-3, warmup_steps=100,
                  hidden=256, transformer_layers=4, mamba_layers=7, **PAPER_HEADS, **PAPER_LSTM,
                  architectures=("transformer-hard-alibi", "mamba2", "lstm"), workers=1, evaluation_docs=100),
    # For tests: trains in seconds; scoring is most of it (`copy-tasks train --quick`, six architectures: 25
    # lm-eval runs, about 3 minutes of CPU, 9 on a busy 2-core machine; the tests train one or two).
    "quick": Recipe(phases={**_paper(Phases(4, 2), Phases(3, 1)),
                            "mqar": Phases(3, 1, easy_steps=2, easy_lengths=(2, 4))},
                    batch_size=4, packed_rows=2, context=64,
                    copy_lengths=(5, 10), lookup_lengths=(8, 12), seeds=(0,), checkpoint_steps=(3,),
                    learning_rate=1e-3, warmup_steps=2, hidden=32, transformer_layers=2, attention_heads=2,
                    masked_heads=1, mamba_layers=2, lstm_layers=2, mqar_pairs=(8, 10), log_every=2, evaluation_docs=4,
                    workers=1),
}
