"""Compare two folders of smoke runs (`.ci/smoke_run.py`), one under lm-eval 0.4 and one under
0.5: every task has the same metric keys and values, and every logged doc the same prompts,
answers and verdicts. Prints each difference and exits 1 if there is one.

    python .ci/same_runs.py OUT_0_4 OUT_0_5
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from copy_tasks.harness.lm_eval_internals import parse_results_key, results_table
from copy_tasks.report.results import read_results, read_samples, samples_beside


def same(one, other) -> bool:
    if isinstance(one, float) and isinstance(other, float):
        return (math.isnan(one) and math.isnan(other)) or math.isclose(one, other, rel_tol=1e-9, abs_tol=1e-12)
    return one == other


def metrics(entry: dict) -> dict:
    """A task's results: metric key -> value (lm-eval's other fields, which 0.5 adds to, left out)."""
    return {key: value for key, value in entry.items() if parse_results_key(key) is not None}


def compare_run(one: Path, other: Path, counts: dict) -> list[str]:
    """The differences between two results files of the same run (`one`, `other`) and their samples;
    `counts` adds up the tasks and docs compared."""
    differences = []
    first, second = results_table(read_results(one)), results_table(read_results(other))
    if set(first) != set(second):
        differences.append(f"tasks differ: {sorted(set(first) ^ set(second))}")
    first_samples, second_samples = samples_beside(one), samples_beside(other)
    for task in sorted(set(first) & set(second)):
        counts["tasks"] += 1
        a, b = metrics(first[task]), metrics(second[task])
        if set(a) != set(b):
            differences.append(f"{task}: metric keys differ: {sorted(set(a) ^ set(b))}")
        differences += [f"{task}: {key} {a[key]} != {b[key]}" for key in sorted(set(a) & set(b))
                        if not same(a[key], b[key])]
        if task not in first_samples:
            continue  # a group
        if task not in second_samples:
            differences.append(f"{task}: no samples in {other.parent}")
            continue
        a_docs = {sample["doc_id"]: sample for sample in read_samples(first_samples[task])}
        b_docs = {sample["doc_id"]: sample for sample in read_samples(second_samples[task])}
        if set(a_docs) != set(b_docs):
            differences.append(f"{task}: logged docs differ")
        for doc_id in sorted(set(a_docs) & set(b_docs)):
            counts["docs"] += 1
            x, y = a_docs[doc_id], b_docs[doc_id]
            if x["arguments"] != y["arguments"]:
                differences.append(f"{task} doc {doc_id}: prompts differ")
            if x["resps"] != y["resps"]:
                differences.append(f"{task} doc {doc_id}: answers differ")
            for metric in x["metrics"]:
                if not same(x.get(metric), y.get(metric)):
                    differences.append(f"{task} doc {doc_id}: {metric} {x.get(metric)} != {y.get(metric)}")
    return differences


def main() -> None:
    one, other = map(Path, sys.argv[1:3])
    differences, compared, counts = [], 0, {"tasks": 0, "docs": 0}
    for results in sorted(one.rglob("results_*.json")):
        run = results.parent.relative_to(one)
        matches = sorted((other / run).glob("results_*.json"))
        if len(matches) != 1:
            differences.append(f"{run}: {len(matches)} results files in {other / run}, one expected")
            continue
        differences += [f"{run}: {difference}" for difference in compare_run(results, matches[0], counts)]
        compared += 1
    if not compared:
        differences.append(f"no results files in {one}")
    for difference in differences:
        print(difference)
    print(f"{compared} runs, {counts['tasks']} tasks and groups, {counts['docs']} logged docs compared: "
          f"{'the same' if not differences else f'{len(differences)} differences'}")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
