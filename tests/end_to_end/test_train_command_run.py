"""`copy-tasks train --quick` end to end: trained, scored through plain `lm_eval`, reported, and
the report rebuilt from the results alone (a file of its own, so that it runs beside the other
training tests)."""

from __future__ import annotations

import json
import subprocess
from importlib import import_module

import pytest
from conftest import read_results, run_command
from forked_command import ForkedPopen

from copy_tasks.harness.lm_eval_internals import HF_BACKEND_MODULE, results_key

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


@pytest.fixture(autouse=True)
def forked_lm_eval_children(monkeypatch):
    """The run's lm-eval children (`python -m copy_tasks run`, a cold interpreter each, 5-10 s of
    imports) in forks of the training process: the same commands, logs and results, in seconds.
    The launcher's own subprocess is tested in tests/experiments/test_lm_eval_runner.py. lm-eval's
    `hf` backend is imported here once, not in each fork."""
    import_module(HF_BACKEND_MODULE)
    monkeypatch.setattr(subprocess, "Popen", ForkedPopen)


def test_quick_training_trains_scores_and_reports_through_plain_lm_eval(tmp_path):
    result = run_command(["copy-tasks", "train", "--quick", "--models", "transformer-hard-alibi",
                          "--out", str(tmp_path / "run")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    experiments = (tmp_path / "run" / "experiments.md").read_text()
    assert "### 3. Prefix against suffix key" in experiments and "| ngram_copier-5 | - |" in experiments
    (tmp_path / "run" / "experiments.md").unlink()
    again = run_command(["copy-tasks", "train", "--out", str(tmp_path / "run"), "--report-only"], cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (tmp_path / "run" / "experiments.md").read_text() == experiments  # from the results, not re-run
    for results in (tmp_path / "run" / "results").rglob("results_*.json"):
        assert str(tmp_path) not in results.read_text()  # the --include_path folder is named relatively
    checkpoint = tmp_path / "run" / "copy" / "transformer-hard-alibi" / "seed-0" / "final"
    scored = run_command(["lm_eval", "--model", "hf", "--model_args", f"pretrained={checkpoint}", "--device", "cpu",
                          "--tasks", "random_copy_10", "--limit", "3",
                          "--metadata", '{"copy_tasks_copy_format": "paper"}',
                          "--output_path", str(tmp_path / "plain")], cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr[-3000:]
    results = read_results(tmp_path / "plain")[0]
    assert results["results"]["random_copy_10"][results_key("exact_match")] in (0.0, 1 / 3, 2 / 3, 1.0)
    metadata = results["configs"]["random_copy_10"]["metadata"]
    assert (metadata["copy_tasks_model_type"], metadata["copy_tasks_positions"]) == ("copy_tasks_hard_alibi",
                                                                                     "Hard-ALiBi")


def test_quick_mqar_training_scores_zoologys_format_and_records_the_state_size(tmp_path):
    result = run_command(["copy-tasks", "train", "--quick", "--tasks", "mqar", "--models", "lstm",
                          "--out", str(tmp_path / "run")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((tmp_path / "run" / "training_mqar.json").read_text())  # a record of its own
    assert record["tasks"] == ["mqar"] and record["models"][0]["state_bits"] == 32 * 2 * 2 * 32
    results = read_results(tmp_path / "run" / "results" / "trained-mqar-lstm-s0")[0]
    # the shipped pair counts up to 8 times the quick recipe's most (8 pairs): `mqar_lengths`
    assert set(results["results"]) == {"mqar_tf_8", "mqar_tf_16", "mqar_tf_32", "mqar_tf_64"}
    metadata = results["configs"]["mqar_tf_8"]["metadata"]
    assert (metadata["copy_tasks_mqar_format"], metadata["copy_tasks_state_bits"]) == ("zoology", 4096)
    assert 0.0 <= results["results"]["mqar_tf_8"][results_key("query_accuracy")] <= 1.0
    assert "### Multi-query associative recall" in (tmp_path / "run" / "experiments_mqar.md").read_text()
