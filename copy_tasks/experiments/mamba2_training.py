"""Mamba-2's forward pass for training on a CPU: the function transformers' `Mamba2ForCausalLM`
computes without its CUDA kernels, written in batched matrix products laid out for them.

transformers' pure-PyTorch path (what runs without `mamba_ssm`) spent about half of a training
step of the `mqar` recipe's models in its scan, whose `einsum` layouts copy their operands, and
a tenth in the backward of a depthwise `conv1d`, slow on a CPU. Here the same parameters give
the same numbers (to float32 rounding; tested against transformers' own forward, outputs and
gradients, on padded batches):

- the causal depthwise convolution as `conv_kernel` shifted products (`causal_convolution`);
- the state-space scan in the chunked "state space duality" form of Dao and Gu (2024), as
  transformers computes it (the same stable segment sums), but with heads and chunks as batch
  dimensions, so each contraction is one batched matrix product, and chunks as even as the
  tokens allow (`chunked_scan`); B and C are shared by the heads of a group and are not repeated.

Only the training loop uses it (`copy_tasks.experiments.training.summed_answer_loss`); saved models
are plain `Mamba2ForCausalLM` checkpoints that `lm_eval --model hf` loads and scores with
transformers' own code.

    >>> import torch, transformers
    >>> config = transformers.Mamba2Config(vocab_size=16, hidden_size=8, num_hidden_layers=1, state_size=4,
    ...     expand=2, head_dim=8, num_heads=2, n_groups=1, chunk_size=4)
    >>> model = transformers.Mamba2ForCausalLM(config).eval()
    >>> ids = torch.tensor([[1, 2, 3, 4, 5, 6, 7]])
    >>> ours = model.lm_head(last_hidden_states(model, ids, torch.ones_like(ids)))
    >>> torch.allclose(ours, model(input_ids=ids).logits, atol=1e-5)
    True
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def is_mamba2(model) -> bool:
    """Whether `model` is transformers' Mamba-2 language model (what `last_hidden_states` computes)."""
    return type(model).__name__ == "Mamba2ForCausalLM"


def last_hidden_states(model, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The backbone's output (after its final norm) for `ids` (batch, tokens) with padding `mask`
    (1 for a token, 0 for padding): `model.backbone(ids, attention_mask=mask).last_hidden_state`."""
    backbone = model.backbone
    hidden = backbone.embeddings(ids)
    kept = mask[..., None].to(hidden.dtype)
    for layer in backbone.layers:
        residual = hidden.float() if layer.residual_in_fp32 else hidden
        hidden = residual + mixer_output(layer.mixer, rms_norm(hidden, layer.norm) * kept, kept)
    return rms_norm(hidden, backbone.norm_f)


def rms_norm(hidden: torch.Tensor, norm) -> torch.Tensor:
    """transformers' `Mamba2RMSNorm` (float32 inside)."""
    as_float = hidden.float()
    normed = as_float * torch.rsqrt(as_float.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
    return norm.weight * normed.to(hidden.dtype)


def mixer_output(mixer, hidden: torch.Tensor, kept: torch.Tensor) -> torch.Tensor:
    """One `Mamba2Mixer` on masked input `hidden` (batch, tokens, width)."""
    groups, state, heads = mixer.n_groups, mixer.ssm_state_size, mixer.num_heads
    gate, convolved, step = mixer.in_proj(hidden).split([mixer.intermediate_size, mixer.conv_dim, heads], dim=-1)
    convolved = F.silu(causal_convolution(convolved, mixer.conv1d.weight[:, 0], mixer.conv1d.bias)) * kept
    values, keys, queries = convolved.split([mixer.intermediate_size, groups * state, groups * state], dim=-1)
    batch, tokens, _ = hidden.shape
    values = values.float().view(batch, tokens, heads, mixer.head_dim)
    step = F.softplus(step + mixer.dt_bias).clamp(*mixer.time_step_limit)
    scanned = chunked_scan(values, step.float(), -torch.exp(mixer.A_log.float()),
                           keys.float().view(batch, tokens, groups, state),
                           queries.float().view(batch, tokens, groups, state), mixer.chunk_size)
    scanned = scanned + mixer.D[:, None] * values
    return mixer.out_proj(gated_norm(scanned.reshape(batch, tokens, -1), gate, mixer.norm).to(hidden.dtype))


def causal_convolution(inputs: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """A causal depthwise convolution along the tokens of `inputs` (batch, tokens, channels) with
    `weight` (channels, kernel): output t is the sum over k of weight[:, k] times input
    t - (kernel - 1) + k (zeros before the first token), plus `bias`: `nn.Conv1d(groups=channels,
    padding=kernel - 1)` cut to the tokens.

    >>> causal_convolution(torch.tensor([[[1.0], [2.0], [3.0]]]), torch.tensor([[10.0, 1.0]]), None)[0, :, 0]
    tensor([ 1., 12., 23.])
    """
    kernel, tokens = weight.shape[1], inputs.shape[1]
    padded = F.pad(inputs, (0, 0, kernel - 1, 0))
    out = sum(padded[:, k:k + tokens] * weight[:, k] for k in range(kernel))
    return out if bias is None else out + bias


def gated_norm(scanned: torch.Tensor, gate: torch.Tensor, norm) -> torch.Tensor:
    """transformers' gated RMS norm: the scan times silu(gate), RMS-normed in groups of the norm's
    `group_size` (`Mamba2RMSNormGated`), or over the whole width where the norm has none (the
    `MambaRMSNormGated` of transformers 5.0, this package's lowest)."""
    gated = scanned.float() * F.silu(gate.float())
    grouped = gated.view(*gated.shape[:-1], -1, getattr(norm, "group_size", gated.shape[-1]))
    grouped = grouped * torch.rsqrt(grouped.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
    return norm.weight * grouped.view(gated.shape).to(scanned.dtype)


def segment_sums(decays: torch.Tensor) -> torch.Tensor:
    """out[..., i, j] = decays[..., j + 1] + ... + decays[..., i] for j <= i (0 on the diagonal),
    -inf above it: summed from the inputs, not as a difference of cumulative sums (transformers'
    stable form).

    >>> segment_sums(torch.tensor([1.0, 2.0, 4.0]))
    tensor([[0., -inf, -inf],
            [2., 0., -inf],
            [6., 4., 0.]])
    """
    size = decays.shape[-1]
    below = torch.tril(torch.ones(size, size, dtype=torch.bool, device=decays.device), diagonal=-1)
    sums = decays[..., None].expand(*decays.shape, size).masked_fill(~below, 0).cumsum(dim=-2)
    on_or_below = torch.tril(torch.ones(size, size, dtype=torch.bool, device=decays.device))
    return sums.masked_fill(~on_or_below, -torch.inf)


def chunked_scan(values, step, decay_rate, keys, queries, longest_chunk: int) -> torch.Tensor:
    """Mamba-2's scan y_t = queries_t . h_t, h_t = exp(step_t decay_rate) h_{t-1} + step_t keys_t
    values_t^T, from a zero state: values (batch, tokens, heads, head_dim), step (batch, tokens,
    heads), decay_rate (heads,), keys and queries (batch, tokens, groups, state). Returns (batch,
    tokens, heads, head_dim), without the D skip. The tokens are cut into chunks of at most
    `longest_chunk`, as even as they can be (97 tokens: 2 of 49; transformers pads them to 2 of 64);
    where chunks end changes no result, only the work."""
    batch, tokens, heads, width = values.shape
    groups, state = keys.shape[2:]
    chunks = -(-tokens // longest_chunk)
    chunk = -(-tokens // chunks)
    pad = chunks * chunk - tokens

    def into_chunks(tensor, *inner):  # (batch, tokens, groups, ...) -> (batch, groups, ..., chunks, chunk, ...)
        tensor = F.pad(tensor, (0, 0) * (tensor.dim() - 2) + (0, pad))
        return tensor.reshape(batch, chunks, chunk, groups, *inner)

    scaled = into_chunks(values * step[..., None], heads // groups, width).permute(0, 3, 4, 1, 2, 5)
    decays = into_chunks(step * decay_rate, heads // groups).permute(0, 3, 4, 1, 2)
    keys = into_chunks(keys, state).permute(0, 3, 1, 2, 4)[:, :, None]  # (batch, groups, 1, chunks, chunk, state)
    queries = into_chunks(queries, state).permute(0, 3, 1, 2, 4)[:, :, None]
    cumulative = decays.cumsum(-1)
    # Within a chunk: attention-like scores, decayed from each source token to each target.
    within = (queries @ keys.transpose(-1, -2)) * torch.exp(segment_sums(decays))
    out = within @ scaled
    # Each chunk's contribution to the state at its end, then the states at the chunks' starts.
    to_end = torch.exp(cumulative[..., -1:] - cumulative)
    # (batch, groups, heads a group, chunks, width, state)
    chunk_states = (scaled * to_end[..., None]).transpose(-1, -2) @ keys
    chunk_states = torch.cat([torch.zeros_like(chunk_states[:, :, :, :1]), chunk_states], dim=3)
    across = torch.exp(segment_sums(F.pad(cumulative[..., -1], (1, 0))))  # (..., chunks + 1, chunks + 1)
    starts = (across @ chunk_states.flatten(-2)).view(chunk_states.shape)[:, :, :, :-1]
    out = out + (queries @ starts.transpose(-1, -2)) * torch.exp(cumulative)[..., None]
    out = out.permute(0, 3, 4, 1, 2, 5).reshape(batch, chunks * chunk, heads, width)
    return out[:, :tokens]
