"""An LSTM language model as a transformers model type of its own (`copy_tasks_lstm`), so that
`lm_eval --model hf` loads, scores and generates with it like any causal LM.

transformers has no LSTM language model. This one is an embedding, `nn.LSTM` layers and a
linear head, as in the paper's synthetic experiments. It keeps no cache: each generation step
reads the whole sequence again (the recurrence is linear in its length, and the strings are
short). A row that is padded on the left, as lm-eval pads prompts for generation, is run with
its padding moved to the right (`copy_tasks.models.left_padding`), so a row's outputs do not
depend on its padding. Its state is
2 x layers x hidden floats (`copy_tasks.harness.state_size`): what a fixed-state model can carry.

    >>> import torch
    >>> model = LstmForCausalLM(LstmConfig(vocab_size=5, hidden_size=8, num_hidden_layers=1))
    >>> ids = torch.tensor([[3, 1, 2], [0, 1, 2]])
    >>> padded = model(ids, attention_mask=torch.tensor([[1, 1, 1], [0, 1, 1]])).logits
    >>> alone = model(ids[1:, 1:]).logits
    >>> bool(torch.allclose(padded[1, 1:], alone[0], atol=1e-6))
    True
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

from copy_tasks.models.left_padding import padding_moved_right

MODEL_TYPE = "copy_tasks_lstm"


class LstmConfig(PretrainedConfig):
    model_type = MODEL_TYPE

    def __init__(self, vocab_size: int = 128, hidden_size: int = 256, num_hidden_layers: int = 4,
                 max_position_embeddings: int = 4096, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        # No position limit of its own; declared so that lm-eval's max_length reads a context.
        self.max_position_embeddings = max_position_embeddings
        kwargs.setdefault("use_cache", False)
        kwargs.setdefault("tie_word_embeddings", False)
        super().__init__(**kwargs)


class LstmForCausalLM(PreTrainedModel, GenerationMixin):
    config_class = LstmConfig
    base_model_prefix = "lstm"
    main_input_name = "input_ids"

    def __init__(self, config: LstmConfig):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.lstm = nn.LSTM(config.hidden_size, config.hidden_size, config.num_hidden_layers, batch_first=True)
        self.head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def _init_weights(self, module):
        if isinstance(module, nn.Embedding):
            nn.init.uniform_(module.weight, -0.1, 0.1)
        elif isinstance(module, nn.Linear):
            bound = self.config.hidden_size ** -0.5
            nn.init.uniform_(module.weight, -bound, bound)
            nn.init.zeros_(module.bias)

    def get_input_embeddings(self):
        return self.embed

    def set_input_embeddings(self, value):
        self.embed = value

    def get_output_embeddings(self):
        return self.head

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                labels: torch.Tensor | None = None, logits_to_keep: int | torch.Tensor = 0,
                **kwargs) -> CausalLMOutput:
        """Logits at every position, or (transformers' `logits_to_keep`) at the last
        `logits_to_keep` positions only (0: every position), or at the positions a 1-d tensor
        names."""
        hidden = padding_moved_right(input_ids, attention_mask, lambda ids: self.lstm(self.embed(ids))[0])
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

