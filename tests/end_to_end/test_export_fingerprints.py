"""End-to-end: the export's fingerprints against a real `lm_eval` run's."""

from __future__ import annotations

import json

import pytest
from conftest import read_results, run_command
from export_fixtures import FAMILIES, LENGTHS

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


def card_row(family: str, length: int, sha256: str) -> str:
    """The card's provenance line of a split of 5 docs made with the defaults."""
    options = "copy_tasks_copy_format = `natural`" if family == "random_copy" else "none"
    return f"| {family} | length_{length} | 5 | 1234 | 1.0 | 3.1 | {options} | `{sha256}` |"


def test_the_fingerprints_equal_those_a_real_lm_eval_run_records(exported, tmp_path):
    tasks = [f"{family}_{LENGTHS[0]}" for family in FAMILIES]
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", ",".join(tasks), "--metadata",
                          json.dumps({"copy_tasks_docs": 5}), "--output_path", str(tmp_path)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    configs = read_results(tmp_path)[0]["configs"]
    card = (exported / "README.md").read_text()
    for family in FAMILIES:
        recorded = configs[f"{family}_{LENGTHS[0]}"]["metadata"]["copy_tasks_docs_sha256"]
        assert card_row(family, LENGTHS[0], recorded) in card
