"""Mamba-2's training forward (`copy_tasks.experiments.mamba2_training`) computes what transformers'
`Mamba2ForCausalLM` computes: hidden states and every parameter's gradient, on right-padded
batches, at chunkings that divide the tokens and that do not, with one group and several."""

from __future__ import annotations

import pytest
import torch
import transformers

from copy_tasks.experiments.mamba2_training import chunked_scan, last_hidden_states


def tiny_mamba2(groups: int, heads: int, chunk: int, state: int = 4) -> transformers.Mamba2ForCausalLM:
    torch.manual_seed(0)
    config = transformers.Mamba2Config(vocab_size=20, hidden_size=8, num_hidden_layers=2, state_size=state, expand=2,
                                       head_dim=16 // heads, num_heads=heads, n_groups=groups, chunk_size=chunk)
    model = transformers.Mamba2ForCausalLM(config)
    with torch.no_grad():  # move A, D and the time steps off their initial values, where a slip could hide
        for layer in model.backbone.layers:
            for parameter in (layer.mixer.A_log, layer.mixer.D, layer.mixer.dt_bias):
                parameter.add_(torch.randn_like(parameter) * 0.5)
    return model


def right_padded(lengths: list[int], vocab: int = 20) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    width = max(lengths)
    ids = torch.randint(1, vocab, (len(lengths), width), generator=generator)
    mask = (torch.arange(width)[None] < torch.tensor(lengths)[:, None]).long()
    return ids * mask, mask


def gradients(model, hidden: torch.Tensor, weights: torch.Tensor) -> dict[str, torch.Tensor]:
    model.zero_grad()
    (hidden * weights).sum().backward()
    return {name: parameter.grad.clone() for name, parameter in model.named_parameters()
            if parameter.grad is not None}  # the output head is not the backbone's


@pytest.mark.parametrize(("groups", "heads", "chunk", "lengths"), [
    (1, 2, 4, [7, 3, 5]),  # chunks of at most 4: 7 tokens in 2 of 4
    (2, 4, 3, [10, 10]),  # two groups of two heads; 10 tokens in 4 chunks of 3
    (1, 2, 8, [40, 17, 33, 1]),  # 5 chunks: the state carried across them
    (1, 1, 64, [12, 9]),  # one chunk
])
def test_the_training_forward_is_transformers_function(groups, heads, chunk, lengths):
    model = tiny_mamba2(groups, heads, chunk)
    ids, mask = right_padded(lengths)
    theirs = model.backbone(input_ids=ids, attention_mask=mask).last_hidden_state
    ours = last_hidden_states(model, ids, mask)
    assert torch.allclose(ours, theirs, atol=1e-5)
    weights = torch.randn(theirs.shape, generator=torch.Generator().manual_seed(2)) * mask[..., None]
    expected, got = gradients(model, theirs, weights), gradients(model, ours, weights)
    assert expected.keys() == got.keys() and len(expected) == len(list(model.backbone.parameters()))
    for name in expected:
        assert torch.allclose(got[name], expected[name], rtol=1e-4, atol=1e-5 * expected[name].abs().max()), name


def test_the_scan_is_the_recurrence_it_is_named_for():
    """Hand-worked, one head of width 1, state 1, decay rate -ln 2 and unit steps (each step
    halves the state): h = 1, 1/2 + 2 = 2.5, 1.25 + 1 = 2.25; y = h times the query (1, 2, 4)."""
    values = torch.tensor([1.0, 2.0, 1.0]).view(1, 3, 1, 1)
    step = torch.ones(1, 3, 1)
    keys = torch.ones(1, 3, 1, 1)
    queries = torch.tensor([1.0, 2.0, 4.0]).view(1, 3, 1, 1)
    for longest_chunk in (1, 2, 3):
        out = chunked_scan(values, step, torch.tensor([-torch.log(torch.tensor(2.0))]), keys, queries, longest_chunk)
        assert torch.allclose(out.flatten(), torch.tensor([1.0, 5.0, 9.0])), longest_chunk
