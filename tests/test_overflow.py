"""No silent truncation: docs longer than the model's context are counted and reported."""

from __future__ import annotations

import logging
import math

from copy_tasks.budgets import MIN_GENERATION_TOKENS
from copy_tasks.lm_eval_hooks import build_dataset
from copy_tasks.model_limits import model_limits


def test_context_comes_from_model_args_then_config_then_default(tiny_models):
    neox, mamba = str(tiny_models["gpt_neox"]), str(tiny_models["mamba"])
    assert model_limits({"pretrained": neox, "max_length": 256}).context == 256
    assert model_limits({"pretrained": neox}).context == 2048  # max_position_embeddings
    # Mamba has no position limit: the tokenizer's model_max_length, as lm-eval does.
    limits = model_limits({"pretrained": mamba})
    assert (limits.context, limits.context_source) == (2048, "the tokenizer's model_max_length")
    assert model_limits({}).tokenizer is None


def test_tiny_model_with_max_length_256_overflows_on_100_entries(tiny_models, caplog):
    metadata = {"pretrained": str(tiny_models["gpt_neox"]), "max_length": 256, "version": 1.0,
                "copy_tasks_docs": 10}
    with caplog.at_level(logging.WARNING, logger="copy_tasks"):
        rows = build_dataset("phonebook_copy", 100, "generation", **metadata)["test"]
    assert all(row["overflow"] == 1.0 and row["context_tokens"] == 256 for row in rows)
    assert all(row["prompt_tokens"] + row["generation_budget"] > 256 for row in rows)
    warning = caplog.text
    assert "phonebook_copy_100: 10 of 10 docs do not fit the context of 256 tokens" in warning
    assert "max_length" in warning


def test_short_books_fit(tiny_models):
    metadata = {"pretrained": str(tiny_models["gpt_neox"]), "version": 1.0, "copy_tasks_docs": 10}
    rows = build_dataset("phonebook_copy", 20, "teacher_forced", **metadata)["test"]
    assert [row["overflow"] for row in rows] == [0.0] * 10
    # " " + 10 digits is 11 bytes: at most 11 tokens; the budget is the authors' 50 tokens.
    assert all(0 < row["answer_tokens"] <= 11 for row in rows)
    assert all(row["generation_budget"] == MIN_GENERATION_TOKENS for row in rows)


def test_unknown_tokenizer_reports_nan_not_zero(caplog):
    with caplog.at_level(logging.WARNING, logger="copy_tasks"):
        rows = build_dataset("phonebook_copy", 20, "generation", version=1.0, copy_tasks_docs=2)["test"]
    assert all(math.isnan(row["overflow"]) for row in rows)
    assert all(row["generation_budget"] == MIN_GENERATION_TOKENS for row in rows)  # needs no tokenizer
    assert "phonebook_copy_20: no tokenizer known" in caplog.text
