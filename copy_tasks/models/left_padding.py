"""Left padding for our cacheless sequence models (the LSTM, conv-then-attention): lm-eval pads
a generation batch on the left, and a recurrence or a convolution would read the padding as
input. `padding_moved_right` runs a model's sequence function with each row's padding moved to
its right end, where a causal model never reads it, and puts the outputs back in place, so a
row's outputs do not depend on its padding.

    >>> import torch
    >>> ids, mask = torch.tensor([[0, 5, 6]]), torch.tensor([[0, 1, 1]])
    >>> padding_moved_right(ids, mask, lambda moved: moved * 10).tolist()  # the model saw [5, 6, 0]
    [[0, 50, 60]]
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def left_padding(attention_mask: torch.Tensor) -> torch.Tensor:
    """Leading zeros of each row of the mask.

    >>> left_padding(torch.tensor([[1, 1, 0], [0, 0, 1]])).tolist()
    [0, 2]
    """
    return (attention_mask.cumsum(dim=1) == 0).sum(dim=1)


def shift_rows(values: torch.Tensor, shifts: torch.Tensor) -> torch.Tensor:
    """Each row rolled left by its shift (positions wrap around).

    >>> shift_rows(torch.tensor([[0, 7, 8], [1, 2, 3]]), torch.tensor([1, 0])).tolist()
    [[7, 8, 0], [1, 2, 3]]
    """
    length = values.shape[1]
    index = (torch.arange(length, device=values.device)[None, :] + shifts[:, None]) % length
    if values.dim() == 3:
        index = index[..., None].expand(-1, -1, values.shape[2])
    return values.gather(1, index)


def padding_moved_right(input_ids: torch.Tensor, attention_mask: torch.Tensor | None,
                        run: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """`run(input_ids)` (batch, positions[, features]) with each row's left padding moved to its
    right end and back; unchanged where no row is padded on the left."""
    if attention_mask is None or not bool(attention_mask[:, 0].eq(0).any()):
        return run(input_ids)
    shifts = left_padding(attention_mask)
    return shift_rows(run(shift_rows(input_ids, shifts)), -shifts)
