"""`copy-tasks rescore`: a run's stored answers scored again under the current rules, the run's
own files untouched and never overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from copy_tasks.probes.families import FAMILIES
from copy_tasks.report.rescore import rescore_run, rescore_samples

ROOT = Path(__file__).resolve().parent.parent


def sample(generation: str, target: str, overflow: float = 0.0) -> dict:
    doc = {"family": "random_copy", "prompt": f"a{target}\n\na{target}\n\na", "target": target, "continuation": target}
    return {"doc": doc, "filtered_resps": [generation], "overflow": overflow, "exact_match": 0.5}


def test_a_run_on_copy_is_right_by_our_rule_and_wrong_by_the_authors():
    rescored = rescore_samples("random_copy_10", [sample(" b c b c", " b c"), sample(" b c\n\nb", " b c"),
                                                  sample("", " b c", overflow=1.0)])
    assert [(s["exact_match"], s["authors_exact_match"]) for s in rescored[:2]] == [(1.0, 0.0), (1.0, 1.0)]
    assert all(s != s for s in (rescored[2]["exact_match"], rescored[2]["authors_exact_match"]))  # NaN: cut
    assert rescored[0]["metrics"] == [*FAMILIES["random_copy"].generation_metrics, "overflow"]


def test_the_published_gemma_run_is_rescored_and_rescoring_it_again_changes_nothing(tmp_path):
    run = ROOT / "leaderboard/results/gemma-3-270m/gemma-3-270m"
    source = next(path for path in sorted(run.glob("results_*.json"))
                  if "random_copy_200" in json.loads(path.read_text())["results"])
    before = source.read_bytes()
    published = json.loads(before)
    assert "random_copy_200" in rescore_run(source, tmp_path)
    results = json.loads((tmp_path / source.name).read_text())
    assert results["results"] == published["results"]
    copy = results["results"]["random_copy_200"]
    # 25 docs: every copy right by its words; the authors' rule needs a blank line right after
    # it, and 17 of the 25 answers start the string again on the same line: 8 / 25 = 0.32.
    assert (copy["exact_match,none"], copy["authors_exact_match,none"]) == (1.0, 0.32)
    assert results["versions"]["random_copy_200"] == float(FAMILIES["random_copy"].task_version)
    assert results["configs"]["random_copy_200"]["metadata"]["copy_tasks_rescored_from"] == 2.0
    assert source.read_bytes() == before
    with pytest.raises(FileExistsError, match="exist already"):
        rescore_run(source, tmp_path)
