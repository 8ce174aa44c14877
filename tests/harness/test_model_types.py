"""The one model-type table (`copy_tasks.harness.model_types`), read by the leaderboard's
architecture column, the position scheme and the state size (issue 43 finding 7: three copies)."""

from __future__ import annotations

from types import SimpleNamespace as Config

from copy_tasks.harness.model_info import position_scheme
from copy_tasks.harness.model_types import MODEL_TYPES, architecture_of, has_fixed_state
from copy_tasks.harness.state_size import NUMBERS_PER_LAYER, state_bits
from copy_tasks.report.rows import architecture


def test_every_state_we_count_is_of_a_fixed_state_type_and_the_table_decides_all_three():
    assert [name for name in NUMBERS_PER_LAYER if not has_fixed_state(name)] == []
    assert [architecture_of(name) for name in ("rwkv7", "zamba2", "copy_tasks_lstm", "gpt_neox", "")] == [
        "ssm", "hybrid", "rnn", "transformer", "unknown"]
    assert state_bits(Config(model_type="jamba", hidden_size=8, num_hidden_layers=1)) is None  # a hybrid: none
    assert [name for name, known in MODEL_TYPES.items() if known.positions and position_scheme(Config(
        model_type=name)) != known.positions] == []
    assert architecture("hf", "bloom", position_scheme(Config(model_type="bloom"))) == "transformer (ALiBi)"
