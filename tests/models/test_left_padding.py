"""Left padding moved to the right for our cacheless models (`copy_tasks.models.left_padding`)."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.models.left_padding import padding_moved_right, shift_rows


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.integers(0, 5), min_size=1, max_size=4), width=st.integers(6, 9))
def test_a_causal_function_of_each_rows_own_tokens_sees_them_as_if_unpadded(rows, width):
    """A running sum per row (a causal function of the tokens) over left-padded rows gives, at
    each real position, the running sum of that row alone."""
    tokens = torch.randint(1, 9, (len(rows), width))
    mask = torch.ones_like(tokens)
    for row, padding in enumerate(rows):
        mask[row, :padding], tokens[row, :padding] = 0, 0
    summed = padding_moved_right(tokens, mask, lambda ids: ids.cumsum(dim=1))
    for row, padding in enumerate(rows):
        assert summed[row, padding:].tolist() == tokens[row, padding:].cumsum(0).tolist()


def test_shift_rows_rolls_each_row_of_a_3d_tensor_and_back():
    values = torch.tensor([[[1, 10], [2, 20], [3, 30]], [[4, 40], [5, 50], [6, 60]]])
    shifts = torch.tensor([2, 0])
    rolled = shift_rows(values, shifts)
    assert rolled.tolist() == [[[3, 30], [1, 10], [2, 20]], [[4, 40], [5, 50], [6, 60]]]
    assert torch.equal(shift_rows(rolled, -shifts), values)
