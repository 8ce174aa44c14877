"""The model-type table (`copy_tasks.harness.model_types`): the architecture of a run that recorded
no measured one, and the position scheme; an unknown type is unknown, never a transformer
(issue 53: ten hybrid types were labelled `transformer` by default)."""

from __future__ import annotations

from types import SimpleNamespace as Config

from copy_tasks.harness.model_info import position_scheme
from copy_tasks.harness.model_types import MODEL_TYPES, architecture_of
from copy_tasks.report.rows import architecture


def test_the_table_decides_the_label_of_a_run_that_measured_none_and_nothing_unknown_is_a_transformer():
    assert [architecture_of(name) for name in ("rwkv7", "zamba2", "copy_tasks_lstm", "gpt_neox", "", None,
                                               "a_new_type")] == [
        "ssm", "hybrid", "rnn", "transformer", "unknown", "unknown", "unknown"]
    assert [architecture_of(name) for name in ("lfm2_moe", "qwen3_5_text", "qwen3_5_moe_text", "kimi_linear",
                                               "olmo_hybrid", "bailing_hybrid", "lara_mini", "zaya",
                                               "inkling_text", "recurrent_gemma")] == ["hybrid"] * 10
    assert [name for name, known in MODEL_TYPES.items() if known.positions and position_scheme(Config(
        model_type=name)) != known.positions] == []
    assert architecture("hf", "bloom", position_scheme(Config(model_type="bloom"))) == "transformer (ALiBi)"
    assert architecture("hf", "a_new_type", None, "hybrid") == "hybrid"  # the run's measured label first
