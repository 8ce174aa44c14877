"""The prompt-token tables (`copy_tasks.report.prompt_tokens`)."""

from __future__ import annotations

from copy_tasks.report.prompt_tokens import prompt_tokens_markdown


def test_each_length_in_the_models_own_tokens():
    rows = [{"name": "m", "flags": "", "family": "random_copy", "variant": "generation", "length": length,
             "metric": metric, "value": value}
            for length, metric, value in (("10", "prompt_tokens_mean", "31.5"), ("10", "prompt_tokens_max", "40"),
                                          ("20", "prompt_tokens_mean", "60"))]
    assert prompt_tokens_markdown(rows)[-3:] == ["| model | 10 | 20 |", "|---|---:|---:|", "| m | 32 (40) | 60 |"]
    assert prompt_tokens_markdown([]) == []
    # the n-gram copier counts its prompts in bytes, what it keeps: not a tokenizer's tokens, not tabled
    copier = [{**row, "name": "ngram_copier", "backend": "ngram_copier", "value": "99"} for row in rows]
    assert prompt_tokens_markdown(rows + copier) == prompt_tokens_markdown(rows)
