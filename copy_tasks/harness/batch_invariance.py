"""A verdict never depends on the batch size: models whose rows read the rows beside them run at
batch 1.

lm-eval pads a generation batch on the left and passes the attention mask; a model that ignores
the mask (RWKV's and xLSTM's recurrences read the padding as input) or whose batched generation
differs from a row's own (transformers' cached RWKV generation dropped a token even for equal
prompts without padding) writes other text at batch 4 than at batch 1. `batch_dependence` finds
them by a check on the model itself, not a list of names: a row's next-token logits after left
padding against the row alone, and a greedy generation of two equal rows against one. A run
whose model fails it at a batch size above 1 runs at batch 1 (`run_rows_apart`), says so once,
and records why (`copy_tasks_batch_one`).

    >>> import torch
    >>> class Echo(torch.nn.Module):  # a model whose logits at a position are its input token's one-hot
    ...     device, config = torch.device("cpu"), type("Config", (), {"pad_token_id": 0, "vocab_size": 40})()
    ...     def forward(self, input_ids, attention_mask=None, **kwargs):
    ...         return type("Out", (), {"logits": torch.nn.functional.one_hot(input_ids, 40).float()})()
    ...     def generate(self, input_ids, attention_mask=None, max_new_tokens=1, **kwargs):
    ...         return torch.cat([input_ids, input_ids[:, -max_new_tokens:]], dim=1)
    >>> batch_dependence(Echo()) is None
    True
"""

from __future__ import annotations

from copy_tasks.harness.backend_limits import warn_once
from copy_tasks.harness.lm_eval_internals import unwrap_model

CHECKED = "_copy_tasks_batch_dependence"  # the attribute a model's check is kept in
PROMPT = list(range(5, 13))  # eight token ids
PADDING = 3
TOLERANCE = 1e-3  # of the logits' scale: a masked model's padded row differs by rounding only


def batch_dependence(model) -> str | None:
    """Why a row's outputs depend on the batch around it, or None (module docstring)."""
    import torch

    pad = getattr(model.config, "pad_token_id", None) or 0
    vocabulary = getattr(model.config, "vocab_size", None) or max(PROMPT) + 1
    ids = torch.tensor([[token % vocabulary for token in PROMPT]], device=model.device)
    padded = torch.cat([torch.full((1, PADDING), pad, device=model.device), ids], dim=1)
    mask = torch.cat([torch.zeros((1, PADDING), dtype=torch.long), torch.ones_like(ids.cpu())], dim=1).to(model.device)
    with torch.no_grad():
        alone = model(input_ids=ids).logits[0, -1].float()
        beside = model(input_ids=padded, attention_mask=mask).logits[0, -1].float()
        scale = max(1.0, float(alone.abs().max()))
        if float((alone - beside).abs().max()) > TOLERANCE * scale:
            return "its outputs change with left padding (it does not read the attention mask)"
        one = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=4, do_sample=False,
                             pad_token_id=pad)
        two = model.generate(ids.repeat(2, 1), attention_mask=torch.ones_like(ids).repeat(2, 1), max_new_tokens=4,
                             do_sample=False, pad_token_id=pad)
    if not all(torch.equal(row, one[0]) for row in two):
        return "its batched generation differs from one row's"
    return None


def run_rows_apart(lm) -> str | None:
    """Set a live `hf` (or `hf_fast`) model whose rows depend on their batch (`batch_dependence`,
    checked once a model) to batch 1, saying so once; return why, or None."""
    lm = unwrap_model(lm)
    model = getattr(lm, "model", None)
    if model is None or not hasattr(lm, "batch_size_per_gpu") or not hasattr(model, "generate"):
        return None
    if not hasattr(model, CHECKED):
        setattr(model, CHECKED, batch_dependence(model))
    reason = getattr(model, CHECKED)
    if reason is not None and lm.batch_size_per_gpu != 1:
        warn_once(f"--batch_size {lm.batch_size_per_gpu}: this model runs at batch 1, since {reason}: a larger batch "
                  "would change its answers")
        lm.batch_size_per_gpu = 1
    return reason
