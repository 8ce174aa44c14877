"""Complete results (`copy_tasks.harness.complete_results`): every metric key present, NaN group
means where docs were cut, and lm-eval's loggers take them."""

from __future__ import annotations

import math

import pytest
from hf_runs import PHONE_BOOKS

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)
from copy_tasks.harness.lm_eval_internals import results_key


def test_every_metric_is_reported_and_a_group_with_cut_docs_reports_nan(hf_run):
    _, results = hf_run
    scores = results["results"]
    for task in PHONE_BOOKS:  # every metric key, of the task and its stderr, in every task
        assert {results_key(metric, stderr=stderr) for metric in ("exact_match", "prefix_match", "authors_exact_match",
                                                                   "overflow")
                for stderr in (False, True)} <= set(scores[task]), task
    assert math.isnan(scores["phonebook_copy_30"][results_key("exact_match")])  # every doc cut: NaN, not absent
    assert not math.isnan(scores["phonebook_copy_10"][results_key("exact_match")])  # every doc fits: a score
    group = results["groups"]["phonebook_copy"]
    assert math.isnan(group[results_key("exact_match")]) and math.isnan(group[results_key("authors_exact_match")])
    members = results["group_subtasks"]["phonebook_copy"]
    overflow = results_key("overflow")
    assert group[overflow] == pytest.approx(sum(scores[t][overflow] for t in members) / len(members))


@pytest.mark.integration  # the extra `api` (lm-eval's wandb extra)
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
