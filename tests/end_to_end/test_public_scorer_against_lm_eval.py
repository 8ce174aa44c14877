"""End-to-end: the public scorer against the per-sample metrics `lm_eval` logged."""

from __future__ import annotations

import pytest
from answer_styles import backend_text, scripted_samples

import copy_tasks
from copy_tasks.probes.task_docs import task_rows

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end

LOGGED_STYLES = ("restated_start", "next_line_text", "run_on", "first_wrong")


@pytest.mark.parametrize("style", LOGGED_STYLES)
def test_the_public_scorer_gives_the_metrics_lm_eval_logged(tmp_path, style):
    metadata = {"copy_tasks_docs": 3}
    tasks = {"phonebook_copy_10": ("phonebook_copy", 10), "random_copy_10": ("random_copy", 10),
             "lookup_suffix_20": ("lookup_suffix", 20)}
    docs = [row for family, length in tasks.values() for row in task_rows(family, length, "generation", metadata)]
    samples, tokenize = scripted_samples(docs, list(tasks), style, tmp_path, metadata)
    for task, logged in samples.items():
        assert len(logged) == 3
        for sample in logged:
            response = sample["resps"][0][0]
            metrics = {name: sample[name] for name in sample["metrics"] if name != "overflow"}
            assert copy_tasks.score(sample["doc"], response) == metrics, (task, response)
            # the text the helper writes is the one the backend returned, before the stop cut
            assert copy_tasks.score(sample["doc"], backend_text(style, sample["doc"], tokenize)) == metrics
            assert response in backend_text(style, sample["doc"], tokenize)
