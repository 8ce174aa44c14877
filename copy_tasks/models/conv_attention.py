"""Conv-then-attention: Zoology's attention baseline for multi-query associative recall, as a
transformers model type of our own (`copy_tasks_conv_attention`), so that `lm_eval --model hf`
loads, scores and generates with it like any causal LM.

Each of its layers is a short causal depthwise convolution (kernel `conv_kernel`, 3) and then
softmax attention over every earlier position, with no position information beyond the
convolution's and the causal mask's, and no MLP; the output head is the token embedding
(tied), as in Zoology's MQAR models. Pre-norm: a layer computes

    u = norm0(x);  x = conv(u) + u;  x = x + attention(norm1(x))

(the convolution keeps its own residual, over its normed input). Why the convolution: a
transformer must first learn to carry each token's predecessor into the token (a previous-token
head) before a lookup can pay off; at initialisation a causal convolution already mixes in the
previous token, and with it a 2-layer model of width 64 learns 64 pairs in about a CPU-minute,
where the same model without it sits at chance for thousands of steps (`shared/pilots/mqar`;
docs/training.md).

It keeps no cache: each generation step reads the whole sequence again (MQAR is scored
teacher-forced, one pass a doc). A row padded on the left is run with its padding moved to the
right (`copy_tasks.models.left_padding`), so a row's outputs do not depend on its padding. What
it would keep to go on is a transformer's: the keys and values of every position (growing), and
the last `conv_kernel - 1` inputs of each convolution (fixed).

    >>> import torch
    >>> model = ConvAttentionForCausalLM(ConvAttentionConfig(vocab_size=7, hidden_size=8, num_hidden_layers=2))
    >>> ids = torch.tensor([[3, 1, 2, 4], [0, 1, 2, 4]])
    >>> padded = model(ids, attention_mask=torch.tensor([[1, 1, 1, 1], [0, 1, 1, 1]])).logits
    >>> alone = model(ids[1:, 1:]).logits
    >>> bool(torch.allclose(padded[1, 1:], alone[0], atol=1e-6))
    True
    >>> later = model(torch.tensor([[3, 1, 2, 6]])).logits  # causal: the last token changes no earlier logit
    >>> bool(torch.allclose(later[0, :3], padded[0, :3], atol=1e-6))
    True
"""

from __future__ import annotations

import math

import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

from copy_tasks.models.left_padding import padding_moved_right

MODEL_TYPE = "copy_tasks_conv_attention"


class ConvAttentionConfig(PretrainedConfig):
    model_type = MODEL_TYPE

    def __init__(self, vocab_size: int = 128, hidden_size: int = 64, num_hidden_layers: int = 2,
                 num_attention_heads: int = 1, conv_kernel: int = 3, max_position_embeddings: int = 4096,
                 initializer_range: float = 0.02, **kwargs):
        if hidden_size % num_attention_heads:
            raise ValueError(f"hidden_size={hidden_size} must be a multiple of num_attention_heads="
                             f"{num_attention_heads}")
        if conv_kernel < 1:
            raise ValueError(f"conv_kernel={conv_kernel}: allowed are 1 or more")
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.conv_kernel = conv_kernel
        self.initializer_range = initializer_range
        # No position limit of its own; declared so that lm-eval's max_length reads a context.
        self.max_position_embeddings = max_position_embeddings
        kwargs.setdefault("use_cache", False)
        kwargs["tie_word_embeddings"] = True  # the head is the embedding (the logits read it directly)
        super().__init__(**kwargs)


class CausalConv(nn.Module):
    """A depthwise convolution over positions that sees each position and the `kernel - 1` before it."""

    def __init__(self, width: int, kernel: int):
        super().__init__()
        self.conv = nn.Conv1d(width, width, kernel, groups=width, padding=kernel - 1)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.conv(hidden.transpose(1, 2))[..., : hidden.shape[1]].transpose(1, 2)


class CausalAttention(nn.Module):
    """Multi-head causal softmax attention, no position information."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out_proj = nn.Linear(width, width)
        self.out_proj.scaled_by_depth = True  # initialised smaller, by the model's depth (`_init_weights`)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        batch, positions, width = hidden.shape
        query, key, value = (self.qkv(hidden).view(batch, positions, 3, self.heads, width // self.heads)
                             .permute(2, 0, 3, 1, 4))
        mixed = nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True)
        return self.out_proj(mixed.transpose(1, 2).reshape(batch, positions, width))


class ConvAttentionLayer(nn.Module):
    def __init__(self, config: ConvAttentionConfig):
        super().__init__()
        self.conv_norm = nn.LayerNorm(config.hidden_size)
        self.conv = CausalConv(config.hidden_size, config.conv_kernel)
        self.attention_norm = nn.LayerNorm(config.hidden_size)
        self.attention = CausalAttention(config.hidden_size, config.num_attention_heads)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        normed = self.conv_norm(hidden)
        hidden = self.conv(normed) + normed
        return hidden + self.attention(self.attention_norm(hidden))


class ConvAttentionForCausalLM(PreTrainedModel, GenerationMixin):
    config_class = ConvAttentionConfig
    base_model_prefix = "conv_attention"
    main_input_name = "input_ids"
    _tied_weights_keys = {"head.weight": "embed.weight"}

    def __init__(self, config: ConvAttentionConfig):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(ConvAttentionLayer(config) for _ in range(config.num_hidden_layers))
        self.final_norm = nn.LayerNorm(config.hidden_size)
        self.head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def _init_weights(self, module):
        """Zoology's: N(0, 0.02) for embeddings and linear maps, the attention's output map
        scaled down by the depth; the convolutions keep torch's own initialisation."""
        std = self.config.initializer_range
        if isinstance(module, nn.Linear) and module is not self.head:  # the head is the embedding
            depth = math.sqrt(2 * self.config.num_hidden_layers) if getattr(module, "scaled_by_depth", False) else 1
            nn.init.normal_(module.weight, std=std / depth)
            nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=std)

    def get_input_embeddings(self):
        return self.embed

    def set_input_embeddings(self, value):
        self.embed = value

    def get_output_embeddings(self):
        return self.head

    def hidden_states(self, input_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(input_ids)
        for layer in self.layers:
            hidden = layer(hidden)
        return self.final_norm(hidden)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                labels: torch.Tensor | None = None, logits_to_keep: int | torch.Tensor = 0,
                **kwargs) -> CausalLMOutput:
        """Logits at every position, or (transformers' `logits_to_keep`) at the last
        `logits_to_keep` positions only (0: every position), or at the positions a 1-d tensor
        names."""
        hidden = padding_moved_right(input_ids, attention_mask, self.hidden_states)
        kept = slice(-logits_to_keep, None) if isinstance(logits_to_keep, int) else logits_to_keep
        logits = self.head(hidden[:, kept])
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                               labels[:, 1:].reshape(-1), ignore_index=-100)
        return CausalLMOutput(loss=loss, logits=logits)

    def prepare_inputs_for_generation(self, input_ids, attention_mask=None, **kwargs):
        return {"input_ids": input_ids, "attention_mask": attention_mask}

    def _supports_default_dynamic_cache(self) -> bool:
        return False
