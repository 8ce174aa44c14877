"""A scripted model that lm-eval's `hf` backend loads like any causal LM: after each prompt of its
script it writes the script's token ids, then EOS. Where the `scripted` backend
(`copy_tasks.models.scripted_lm`) stands in for a whole lm-eval model, this one goes through
`hf` itself: its batching and left padding, transformers' `generate`, the tokenizer's decoder,
and our early stop (`copy_tasks.harness.answer_stops`), which only `hf` runs. The conformance
battery's multi-byte answers (`copy_tasks.probes.conformance.MULTIBYTE_WRITINGS`) run through it
under a byte-fallback tokenizer (`copy_tasks.experiments.tiny_models.build_byte_fallback_tokenizer`);
importing this module registers its model type with transformers' Auto classes.

`write_scripted_model(folder, tokenizer, script)` saves it with its tokenizer; `script` maps
each prompt (as lm-eval passes it to the model) to the text written after it. A row is matched
to the longest prompt of the script that begins it (its left padding aside); the token after a
prompt and what the row wrote since is the script's next one while the row has followed the
script, else EOS.
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForCausalLM, GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

MODEL_TYPE = "copy_tasks_scripted_hf"


class ScriptedHFConfig(PretrainedConfig):
    model_type = MODEL_TYPE

    def __init__(self, vocab_size: int = 8, script: list | None = None, **kwargs):
        self.vocab_size = vocab_size
        self.script = script or []  # [[prompt ids, written ids], ...]
        self.max_position_embeddings = 8192
        kwargs.setdefault("use_cache", False)
        super().__init__(**kwargs)


class ScriptedHFModel(PreTrainedModel, GenerationMixin):
    config_class = ScriptedHFConfig
    main_input_name = "input_ids"

    def __init__(self, config: ScriptedHFConfig):
        super().__init__(config)
        self.unused = torch.nn.Parameter(torch.zeros(1))  # a model has parameters (its device, its dtype)
        self.prompts: dict[int, dict[tuple, list[int]]] = {}
        for prompt, written in config.script:
            self.prompts.setdefault(len(prompt), {})[tuple(prompt)] = list(written)
        self.post_init()

    def _init_weights(self, module):
        pass

    def next_tokens(self, row: list[int]) -> list[int]:
        """The token the model writes after each prefix of `row` (EOS outside the script)."""
        eos = self.config.eos_token_id
        start = max((length for length, prompts in self.prompts.items()
                     if length <= len(row) and tuple(row[:length]) in prompts), default=None)
        if start is None:
            return [eos] * len(row)
        written = self.prompts[start][tuple(row[:start])]
        following = [eos] * len(row)
        for end in range(start, len(row) + 1):  # after row[:end]
            so_far = row[start:end]
            if so_far == written[: len(so_far)] and len(so_far) < len(written):
                following[end - 1] = written[len(so_far)]
        return following

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None, **kwargs) -> CausalLMOutput:
        logits = torch.zeros(*input_ids.shape, self.config.vocab_size)
        for index, row in enumerate(input_ids.tolist()):
            padding = 0 if attention_mask is None else int((attention_mask[index].cumsum(0) == 0).sum())
            for position, token in enumerate(self.next_tokens(row[padding:])):
                logits[index, padding + position, token] = 30.0
        return CausalLMOutput(logits=logits.to(self.unused.dtype))

    def prepare_inputs_for_generation(self, input_ids, attention_mask=None, **kwargs):
        return {"input_ids": input_ids, "attention_mask": attention_mask}

    def _supports_default_dynamic_cache(self) -> bool:
        return False


AutoConfig.register(MODEL_TYPE, ScriptedHFConfig, exist_ok=True)
AutoModelForCausalLM.register(ScriptedHFConfig, ScriptedHFModel, exist_ok=True)


def write_scripted_model(folder: Path, tokenizer, script: dict[str, str]) -> Path:
    """Save a scripted model that writes `script[prompt]` (then EOS) after each prompt, and
    `tokenizer`, to `folder`; prompts and texts in the tokenizer's own segmentation."""

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    config = ScriptedHFConfig(vocab_size=len(tokenizer), script=[[ids(prompt), ids(text)] for prompt, text in
                                                                 script.items()],
                              eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                              bos_token_id=tokenizer.bos_token_id)
    ScriptedHFModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return Path(folder)
