"""The architectures `copy-tasks train` trains, built fresh from a recipe and a seed: the
paper's six, and for MQAR Zoology's conv-then-attention and Mamba-2 at smaller states.

| name | what | position information |
|---|---|---|
| `transformer-nope` | GPT-NeoX, `rotary_pct` 0 | none (the causal mask only) |
| `transformer-rope` | GPT-NeoX | rotary, every head dimension |
| `transformer-alibi` | Bloom | ALiBi (transformers' own; loads with plain `--model hf`) |
| `transformer-hard-alibi` | GPT-NeoX, our attention (`models.hard_alibi`) | M heads see 0..h back, the rest none |
| `mamba2` | HF `Mamba2ForCausalLM`, state 64 | a recurrent state |
| `lstm` | `nn.LSTM` layers (`copy_tasks.models.lstm_lm`) | a recurrent state |
| `transformer-conv` | a short causal convolution, then attention (`models.conv_attention`) | the convolution's |
| `mamba2-state8`, `-state16`, `-state32` | `mamba2` at a smaller `state_size` | a recurrent state |

Widths, depths and heads come from the recipe (a grid recipe gives every architecture each of
its widths, or the widths it names for one), and so does a tied output head; conv-then-attention
is always tied and has one head, as Zoology's. In recipe `full` the layer counts of Mamba-2 and
the LSTM, and the LSTM's width, are chosen so that every model has about the transformers'
parameter count. Mamba-2 rather than
Mamba-1: on 2 CPU cores HF's Mamba-1 runs its reference scan step by step (28 s a training
step for a 4-layer, 128-wide model on 32 x 128 tokens), while Mamba-2's chunked scan is plain
matrix products (0.44 s).

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> from copy_tasks.experiments.training_data import char_tokenizer
    >>> sorted({kind(name) for name in ARCHITECTURE_KINDS})  # doctest: +NORMALIZE_WHITESPACE
    ['rnn', 'ssm', 'transformer (ALiBi)', 'transformer (Hard-ALiBi)', 'transformer (NoPE)', 'transformer (RoPE)',
     'transformer (short conv)']
"""

from __future__ import annotations

from copy_tasks.experiments.recipes import MAMBA2_STATES

ARCHITECTURE_KINDS = {
    "transformer-nope": "transformer (NoPE)",
    "transformer-rope": "transformer (RoPE)",
    "transformer-alibi": "transformer (ALiBi)",
    "transformer-hard-alibi": "transformer (Hard-ALiBi)",
    "mamba2": "ssm",
    "lstm": "rnn",
    "transformer-conv": "transformer (short conv)",
    **{name: "ssm" for name in MAMBA2_STATES},
}
CONTEXT = 4096  # tokens the saved models declare (lm-eval's max_length)


def kind(architecture: str) -> str:
    """The architecture column of the leaderboard: `transformer (<positions>)`, `ssm` or `rnn`."""
    return ARCHITECTURE_KINDS[architecture]


def build_model(architecture: str, recipe, tokenizer, seed: int, width: int | None = None):
    """A freshly initialised model of `architecture` (torch's generator seeded by `seed`), at
    `width` (a grid recipe's) or the recipe's own width."""
    import torch
    import transformers

    from copy_tasks.models.trained_architectures import register

    register()
    torch.manual_seed(seed)
    special = {"vocab_size": len(tokenizer), "pad_token_id": tokenizer.pad_token_id,
               "eos_token_id": tokenizer.eos_token_id, "bos_token_id": tokenizer.eos_token_id,
               "tie_word_embeddings": architecture in recipe.tied_heads}
    hidden = width or recipe.hidden
    transformer = {"hidden_size": hidden, "num_hidden_layers": recipe.transformer_layers,
                   "num_attention_heads": recipe.attention_heads, "intermediate_size": 4 * hidden,
                   "max_position_embeddings": CONTEXT, **special}
    if architecture in ("transformer-nope", "transformer-rope"):
        rotary = 0.0 if architecture == "transformer-nope" else 1.0
        return transformers.GPTNeoXForCausalLM(transformers.GPTNeoXConfig(rotary_pct=rotary, **transformer))
    if architecture == "transformer-hard-alibi":
        from copy_tasks.models.hard_alibi import HardAlibiConfig, HardAlibiForCausalLM

        return HardAlibiForCausalLM(HardAlibiConfig(num_masked_heads=recipe.masked_heads, **transformer))
    if architecture == "transformer-alibi":
        config = transformers.BloomConfig(hidden_size=hidden, n_layer=recipe.transformer_layers,
                                          n_head=recipe.attention_heads, **special)
        return transformers.BloomForCausalLM(config)
    if architecture == "transformer-conv":
        from copy_tasks.models.conv_attention import ConvAttentionConfig, ConvAttentionForCausalLM

        config = {key: value for key, value in special.items() if key != "tie_word_embeddings"}  # always tied
        return ConvAttentionForCausalLM(ConvAttentionConfig(
            hidden_size=hidden, num_hidden_layers=recipe.transformer_layers, num_attention_heads=1,
            max_position_embeddings=CONTEXT, **config))
    if architecture in MAMBA2_STATES:
        head_dim = min(64, hidden)
        config = transformers.Mamba2Config(
            hidden_size=hidden, num_hidden_layers=recipe.mamba_layers, state_size=MAMBA2_STATES[architecture], expand=2,
            head_dim=head_dim, num_heads=2 * hidden // head_dim, n_groups=1, conv_kernel=4,
            chunk_size=64, **special)
        return transformers.Mamba2ForCausalLM(config)
    if architecture == "lstm":
        from copy_tasks.models.lstm_lm import LstmConfig, LstmForCausalLM

        untied = special | {"tie_word_embeddings": False}  # its head has a bias of its own
        return LstmForCausalLM(LstmConfig(hidden_size=width or recipe.lstm_hidden or recipe.hidden,
                                          num_hidden_layers=recipe.lstm_layers,
                                          max_position_embeddings=CONTEXT, **untied))
    raise ValueError(f"architecture={architecture!r}: allowed are {', '.join(ARCHITECTURE_KINDS)}")


def parameters(model) -> int:
    return sum(parameter.numel() for parameter in model.parameters())


def memory(model):
    """What the model keeps of a prompt (`copy_tasks.harness.state_size`): measured from its cache,
    or by hand for our LSTM and conv-then-attention, at float32."""
    from copy_tasks.harness.cache_memory import measure_memory
    from copy_tasks.harness.state_size import hand_count

    return hand_count(model.config, model.dtype) or measure_memory(model)
