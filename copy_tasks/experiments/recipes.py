"""What a `copy-tasks train` run trains, and with what (`RECIPES`): the paper's six architectures
(`PAPER_ARCHITECTURES`, built by `copy_tasks.experiments.architectures`): GPT-NeoX with no
positions (NoPE), with RoPE, Bloom (ALiBi), Hard-ALiBi, Mamba-2 and an LSTM, and for MQAR
Zoology's conv-then-attention and Mamba-2 at smaller states (`ARCHITECTURES`: every one), each
trained on each task of the recipe (`copy_tasks.experiments.training_tasks`) on its own, from
each seed of the recipe, at each of its widths (`Recipe.widths_of`), for the steps of its two
phases (`Phases`, with an optional curriculum), at the recipe's learning rate (see
docs/training.md).

- `full`: the paper's tasks on 2 CPU cores, models of about 3.2 million parameters;
- `mqar`: Zoology's multi-query associative recall, 2-layer models: attention and the LSTM at
  widths 32 and 64, Mamba-2 at width 64 with states of 8 to 64;
- `gpu`: the paper's tasks at the paper's lengths, sized for a few minutes of one GPU;
- `quick`: tiny models, for tests.

    >>> RECIPES["mqar"].tasks(), RECIPES["full"].tasks()
    (('mqar',), ('copy', 'lookup_prefix', 'lookup_suffix'))
    >>> RECIPES["mqar"].phases["mqar"].lengths_at(0, (4, 64)), RECIPES["mqar"].phases["mqar"].lengths_at(5000, (4, 64))
    ((2, 8), (4, 64))
    >>> RECIPES["mqar"].widths_of("lstm"), RECIPES["mqar"].widths_of("mamba2-state8"), RECIPES["full"].widths_of("lstm")
    ((32, 64), (64,), (None,))
    >>> full = RECIPES["full"]
    >>> full.phases_of("copy", "transformer-rope"), full.phases_of("copy", "transformer-nope").steps
    (Phases(single_steps=900, packed_steps=0, easy_steps=0, easy_lengths=None), 600)
"""

from __future__ import annotations

from dataclasses import dataclass, field

PAPER_ARCHITECTURES = ("transformer-nope", "transformer-rope", "transformer-alibi", "transformer-hard-alibi",
                       "mamba2", "lstm")
MAMBA2_STATES = {"mamba2-state8": 8, "mamba2-state16": 16, "mamba2-state32": 32, "mamba2": 64}  # Mamba-2's state_size
ARCHITECTURES = (*PAPER_ARCHITECTURES, "transformer-conv", *(name for name in MAMBA2_STATES if name != "mamba2"))


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
    architecture_widths: dict = field(default_factory=dict, hash=False)  # architecture -> its own widths in a grid
    architectures: tuple[str, ...] = PAPER_ARCHITECTURES  # what `--models` trains unless told
    tied_heads: tuple[str, ...] = ()  # architectures whose output head is the token embedding (Zoology's)
    learning_rates: dict = field(default_factory=dict, hash=False)  # architecture -> its own peak learning rate
    architecture_phases: dict = field(default_factory=dict, hash=False)  # architecture -> {task: its own Phases}
    mqar_pairs: tuple[int, int] = (8, 32)  # mqar pair counts drawn uniformly from this range
    weight_decay: float = 0.1
    log_every: int = 25  # steps
    evaluation_docs: int = 50  # docs per length of every evaluation (`copy-tasks train`)
    workers: int = 2  # training jobs at once, one torch thread each

    def tasks(self) -> tuple[str, ...]:
        """The tasks a run of this recipe trains unless told: the paper's three where it has them."""
        paper = ("copy", "lookup_prefix", "lookup_suffix")
        return paper if set(paper) <= set(self.phases) else tuple(self.phases)

    def phases_of(self, task: str, architecture: str) -> Phases:
        """The steps an architecture trains a task for: its own (`architecture_phases`), else the recipe's."""
        return self.architecture_phases.get(architecture, {}).get(task, self.phases[task])

    def learning_rate_of(self, architecture: str) -> float:
        """The architecture's peak learning rate: its own (`learning_rates`), else the recipe's."""
        return self.learning_rates.get(architecture, self.learning_rate)

    def widths_of(self, architecture: str) -> tuple[int | None, ...]:
        """The widths an architecture is trained at: its own (`architecture_widths`), else the
        grid's; None (`hidden`, the job named without a width) without a grid."""
        return self.architecture_widths.get(architecture, self.widths) or (None,)


def _paper(copy: Phases, lookup: Phases) -> dict:
    return {"copy": copy, "lookup_prefix": lookup, "lookup_suffix": lookup}


PAPER_HEADS = {"attention_heads": 16, "masked_heads": 8}  # the authors': 16 heads, 8 windowed (1 to 8 keys)
# The LSTM as one or two wide layers (the authors' and common practice), at the transformers' parameters:
# 2 layers of 440 have 3.2 million at the character vocabulary, as 4 transformer layers of 256.
PAPER_LSTM = {"lstm_layers": 2, "lstm_hidden": 440}

RECIPES = {
    # The paper's tasks on 2 CPU cores (docs/training.md has the figures): copies packed into rows of 2,048
    # tokens (the authors' length-generalisation rows), lookups started from their seed's copy model. RoPE
    # copies on 900 single examples a row and no packed rows: the copy pilot's (benchmarks/pilot_copy_training.py)
    # finding, 300 single steps too few and the packed rows undoing what it learned.
    "full": Recipe(phases=_paper(Phases(300, 300), Phases(150, 50)), batch_size=32, packed_rows=1, context=2048,
                   copy_lengths=(5, 20), lookup_lengths=(8, 30), seeds=(0, 1),
                   checkpoint_steps=(100, 200, 300, 450), learning_rate=1e-3, warmup_steps=100,
                   hidden=256, transformer_layers=4, mamba_layers=7, **PAPER_HEADS, **PAPER_LSTM,
                   architecture_phases={"transformer-rope": {"copy": Phases(900, 0)}}),
    # Zoology's MQAR on 2 CPU cores: recall against state. Attention (RoPE, and Zoology's conv-then-attention) and
    # the LSTM at widths 32 and 64, Mamba-2 at width 64 with states of 8 to 64; 2 layers, Mamba-2's head tied to
    # the embedding (Zoology's; conv-then-attention's always is), the loss on the values alone (no end mark). A
    # curriculum of 2 to 8 pairs first, then 4 to 32; scored to 256. Learning rates from the pilots
    # (docs/training.md): 3e-3, RoPE 1e-3 (at 3e-3 it stayed on the plateau; tied, at 1e-3 too).
    "mqar": Recipe(phases={"mqar": Phases(1500, 0, easy_steps=400, easy_lengths=(2, 8))}, batch_size=64,
                   packed_rows=1, context=512, copy_lengths=(5, 20), lookup_lengths=(8, 30), seeds=(0, 1),
                   checkpoint_steps=(), learning_rate=3e-3, learning_rates={"transformer-rope": 1e-3},
                   warmup_steps=50, hidden=64, transformer_layers=2, attention_heads=4, masked_heads=2,
                   mamba_layers=2, lstm_layers=2, widths=(32, 64),
                   architecture_widths=dict.fromkeys(MAMBA2_STATES, (64,)),
                   architectures=("transformer-rope", "transformer-conv", *MAMBA2_STATES, "lstm"), mqar_pairs=(4, 32),
                   tied_heads=tuple(MAMBA2_STATES), log_every=50, workers=2),
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
