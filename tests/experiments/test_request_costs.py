"""The progress line's estimate (`copy_tasks.experiments.request_costs`): each request's cost from
its doc, in the order lm-eval answers them, and the time left from the costs of those done."""

from __future__ import annotations

from copy_tasks.experiments.lm_eval_runner import progress_line
from copy_tasks.experiments.request_costs import DECODE_WEIGHT, GENERATE, LOGLIKELIHOOD, request_costs
from copy_tasks.probes.task_docs import task_rows


def test_teacher_forced_requests_cost_their_characters_longest_first():
    metadata = {"copy_tasks_docs": 3}
    docs = task_rows("random_copy", 10, "teacher_forced", metadata) + task_rows("random_copy", 50, "teacher_forced",
                                                                                metadata)
    costs = request_costs(["random_copy_tf_10", "random_copy_tf_50"], metadata).by_kind[LOGLIKELIHOOD]
    assert costs == tuple(sorted((len(doc["prompt"]) + len(doc["continuation"]) for doc in docs), reverse=True))
    assert costs[0] > costs[-1]  # 50 symbols before 10


def test_generated_requests_are_grouped_by_their_settings_as_they_first_come():
    """lm-eval batches generated requests by their settings (stop sequences, budget): the phone
    book's two tasks share theirs (one line, 50 tokens), random_copy_10 has others (it stops at
    a blank line) and comes first, so its group is answered first, each group longest first."""
    from copy_tasks.probes.families import FAMILIES

    metadata = {"copy_tasks_docs": 2}
    tasks = ["random_copy_10", "phonebook_copy_10", "phonebook_copy_50"]
    rows = {task: task_rows(family, length, "generation", metadata)
            for task, (family, length) in zip(tasks, (("random_copy", 10), ("phonebook_copy", 10),
                                                      ("phonebook_copy", 50)))}

    def cost(doc):
        return len(doc["prompt"]) + DECODE_WEIGHT * len(doc["continuation"])

    copies = sorted(rows["random_copy_10"], key=lambda doc: -len(doc["prompt"]))
    books = sorted(rows["phonebook_copy_10"] + rows["phonebook_copy_50"], key=lambda doc: -len(doc["prompt"]))
    assert FAMILIES["random_copy"].stop_sequences != FAMILIES["phonebook_copy"].stop_sequences
    assert request_costs(tasks, metadata).by_kind[GENERATE] == tuple(map(cost, copies + books))


def test_a_run_of_tasks_not_ours_keeps_the_bars_estimate():
    costs = request_costs(["arc_easy", "random_copy_tf_10"], {})
    assert costs.by_kind == {}
    bar = "Running loglikelihood requests:  45%|####5     | 90/200 [00:10<01:12,  8.50it/s]"
    assert progress_line(bar, 75, costs).endswith("about 1 min 12 s more for these")
