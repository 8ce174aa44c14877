"""Complete results (`copy_tasks.harness.complete_results`): every metric key present, NaN group
means where docs were cut, and lm-eval's loggers take them."""

from __future__ import annotations

import math

import pytest
from hf_runs import PHONE_BOOKS

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)


def test_every_metric_is_reported_and_a_group_with_cut_docs_reports_nan(hf_run):
    _, results = hf_run
    scores = results["results"]
    for task in PHONE_BOOKS:  # every metric key, of the task and its stderr, in every task
        assert {f"{metric}{kind},none" for metric in ("exact_match", "prefix_match", "authors_exact_match", "overflow")
                for kind in ("", "_stderr")} <= set(scores[task]), task
    assert math.isnan(scores["phonebook_copy_30"]["exact_match,none"])  # every doc cut: NaN, not absent
    assert not math.isnan(scores["phonebook_copy_10"]["exact_match,none"])  # every doc fits: a score
    group = results["groups"]["phonebook_copy"]
    assert math.isnan(group["exact_match,none"]) and math.isnan(group["authors_exact_match,none"])
    members = results["group_subtasks"]["phonebook_copy"]
    assert group["overflow,none"] == pytest.approx(sum(scores[t]["overflow,none"] for t in members) / len(members))


def test_lm_evals_wandb_logger_logs_a_run_with_overflowed_lengths(hf_run, tmp_path, monkeypatch):
    """lm-eval's W&B logger reads every metric of every sample and every task; offline, it logs
    a run in which whole lengths overflowed without an error (it raised KeyError 'exact_match')."""
    wandb = pytest.importorskip("wandb")
    from lm_eval.loggers import WandbLogger

    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    _, results = hf_run
    logger = WandbLogger(init_args={"project": "copy-tasks-test", "dir": str(tmp_path), "mode": "offline"})
    try:
        logger.post_init(results)
        logger.log_eval_result()
        logger.log_eval_samples(results["samples"])
    finally:
        logger.run.finish()
    assert wandb.run is None and any(tmp_path.rglob("*.wandb"))
