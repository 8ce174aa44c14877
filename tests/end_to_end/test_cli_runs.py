"""End-to-end: `lm_eval` and `copy-tasks` runs of our tasks, as `copy-tasks lengths` writes them."""

from __future__ import annotations

import pytest
from conftest import read_results, run_command

from copy_tasks.harness.lm_eval_internals import results_key

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


def test_lm_eval_validate_knows_our_tasks(tmp_path):
    validate = run_command(["lm-eval", "validate", "--tasks", "phonebook_copy,lookup_suffix_tf"], cwd=tmp_path)
    assert validate.returncode == 0, validate.stderr[-2000:]
    assert "All tasks found and valid" in validate.stdout + validate.stderr


def test_lm_eval_ls_lists_our_tasks(tmp_path):
    """(lm-eval reads each of its 13,000 task YAMLs again to list them: seconds of its own.)"""
    listing = run_command(["lm-eval", "ls", "tasks"], cwd=tmp_path)
    assert listing.returncode == 0
    for name in ("phonebook_copy", "phonebook_copy_tf_1000", "lookup_prefix_20", "copy_tasks_offline"):
        assert f"|{name} " in listing.stdout


def test_tasks_at_new_lengths_run_through_lm_eval(tmp_path):
    run_command(["copy-tasks", "lengths", "phonebook_copy", "60", "--out", str(tmp_path / "mine")], cwd=tmp_path)
    result = run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--include_path", str(tmp_path / "mine"),
         "--tasks", "phonebook_copy_60,phonebook_copy_tf_60", "--limit", "3", "--output_path", str(tmp_path / "out"),
         "--log_samples"],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results, samples = read_results(tmp_path / "out")
    assert results["results"]["phonebook_copy_60"][results_key("exact_match")] == 1.0
    assert results["results"]["phonebook_copy_tf_60"][results_key("exact_match")] == 1.0
    assert samples["phonebook_copy_60"][0]["doc"]["prompt"].count("\n") == 60 + 4


def test_a_run_outside_a_git_checkout_prints_no_ruler_hint_nor_git_error_and_names_an_unused_key(tmp_path):
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_10,random_copy_20",
                          "--metadata", '{"copy_tasks_docs": 2, "foo": 1}', "--output_path", str(tmp_path / "out")],
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "max_seq_lengths" not in result.stderr and "not a git repository" not in result.stderr
    assert result.stderr.count("--metadata key 'foo' is read by no task of this run") == 1
    results, _ = read_results(tmp_path / "out")
    assert results["git_hash"] is None
