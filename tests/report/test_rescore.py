"""`copy-tasks rescore`: a run's stored answers scored again under the current rules, the run's
own files untouched and never overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import task_rows
from copy_tasks.report.rescore import RescoreRefused, check_sample_docs, rescore_run, rescore_samples


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
    assert (copy[results_key("exact_match")], copy[results_key("authors_exact_match")]) == (1.0, 0.32)
    assert results["versions"]["random_copy_200"] == float(FAMILIES["random_copy"].task_version)
    assert results["configs"]["random_copy_200"]["metadata"]["copy_tasks_rescored_from"] == 2.0
    assert source.read_bytes() == before
    with pytest.raises(FileExistsError, match="exist already"):
        rescore_run(source, tmp_path)


def published_gemma_run(tmp_path: Path, task: str = "random_copy_200", model: str = "gemma-3-270m") -> Path:
    """A copy of a published run's results file holding `task` (Gemma's unless `model`), and its samples."""
    run = ROOT / f"leaderboard/results/{model}/{model}"
    source = next(path for path in sorted(run.glob("results_*.json"))
                  if task in json.loads(path.read_text())["results"])
    copy = tmp_path / "run"
    copy.mkdir()
    for path in [source, *run.glob(f"samples_*_{source.name[len('results_'):-len('.json')]}.jsonl")]:
        (copy / path.name).write_bytes(path.read_bytes())
    return copy / source.name


@pytest.mark.parametrize("damage", ["cut", "duplicated"])
def test_an_incomplete_samples_file_is_refused_naming_it(tmp_path, damage):
    """Finding 3: cut to 2 of 5 lines a run was re-aggregated to exact match 1.0 (0.4 in full)."""
    results = published_gemma_run(tmp_path)
    samples = next(results.parent.glob("samples_random_copy_200_*.jsonl"))
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join(lines[:2] if damage == "cut" else lines + lines[:1]) + "\n")
    with pytest.raises(RescoreRefused, match="cut or padded" if damage == "cut" else "more than once") as refused:
        rescore_run(results, tmp_path / "out")
    assert str(samples) in str(refused.value) and not (tmp_path / "out").exists()


def test_a_run_whose_docs_this_version_does_not_draw_is_refused(tmp_path):
    """Finding 3: a run recorded with other docs was relabelled as the current version."""
    results = published_gemma_run(tmp_path)
    data = json.loads(results.read_text())
    data["configs"]["random_copy_200"]["metadata"]["copy_tasks_docs_sha256"] = "0" * 64
    results.write_text(json.dumps(data))
    with pytest.raises(RescoreRefused, match="scored other docs than this version draws"):
        rescore_run(results, tmp_path / "out")


def test_the_command_refuses_in_one_line(tmp_path):
    results = published_gemma_run(tmp_path)
    samples = next(results.parent.glob("samples_random_copy_200_*.jsonl"))
    samples.write_text("\n".join(samples.read_text().splitlines()[:2]) + "\n")
    completed = subprocess.run([sys.executable, "-m", "copy_tasks", "rescore", str(results.parent), "--out",
                                str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 2 and completed.stderr.count("\n") == 1
    assert completed.stderr.startswith("copy-tasks rescore: error: ") and "Traceback" not in completed.stderr


@pytest.mark.parametrize("damage, says", [
    ({"filtered_resps": None}, "no answer text"), ({"filtered_resps": [None]}, "no answer text"),
    ({"doc": {"family": "random_copy", "prompt": "a", "continuation": " b"}}, "lacks 'target'"),
])
def test_a_sample_without_an_answer_or_a_target_is_one_line(tmp_path, damage, says):
    """Finding 14: these gave KeyError or AttributeError tracebacks."""
    broken = {**sample(" b c", " b c"), **damage}
    with pytest.raises(RescoreRefused, match=says) as refused:
        rescore_samples("random_copy_10", [broken], "samples_random_copy_10_x.jsonl")
    assert "samples_random_copy_10_x.jsonl" in str(refused.value) and "sample 0" in str(refused.value)


def rescore_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "copy_tasks", "rescore", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_bad_paths_and_a_broken_samples_file_are_one_line_naming_them(tmp_path):
    """Finding 14: --out FILE was a NotADirectoryError; a results file or missing path as RUN was said to
    hold no results file; a broken samples file was blamed on the results file."""
    results = published_gemma_run(tmp_path)
    (tmp_path / "taken.txt").write_text("mine")
    samples = next(results.parent.glob("samples_random_copy_200_*.jsonl"))
    for args, says in (((results, "--out", tmp_path / "out"), "is a file; give the folder"),
                       ((tmp_path / "nowhere", "--out", tmp_path / "out"), "does not exist"),
                       ((results.parent, "--out", tmp_path / "taken.txt"), "--out")):
        done = rescore_command(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    samples.write_text("{not json\n")
    done = rescore_command(results.parent, "--out", tmp_path / "out")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and str(samples) in done.stderr, done.stderr
    assert (tmp_path / "taken.txt").read_text() == "mine"


def test_answers_logged_as_lm_eval_0_5_logs_them_are_scored_as_0_4s():
    """lm-eval 0.5 logs each answer as a list of one (`[[" b c"]]`); read flat, the verdicts are 0.4's."""
    nested = sample(" b c b c", " b c")
    nested["filtered_resps"] = [[" b c b c"]]
    rescored = rescore_samples("random_copy_10", [nested, sample(" b c b c", " b c")])
    assert [(s["exact_match"], s["authors_exact_match"]) for s in rescored] == [(1.0, 0.0), (1.0, 0.0)]


def test_every_answer_of_a_doc_of_several_questions_is_scored(tmp_path):
    """Issue 45 finding 1: only the first of mqar's 8 answers was scored (SmolLM2's mqar_8 became 0.52 and 0.52)."""
    source = published_gemma_run(tmp_path, "mqar_8", model="smollm2-135m")
    published = json.loads(source.read_text())["results"]
    samples = [json.loads(line) for line in next(source.parent.glob("samples_mqar_8_*.jsonl")).read_text().splitlines()]
    rights = [[answer.strip() == value for answer, value in zip(s["filtered_resps"], s["doc"]["query_values"])]
              for s in samples]
    # worked from the answers: 8 of 25 docs have every value right, 180 of 200 values are right
    assert (sum(map(all, rights)), sum(map(sum, rights))) == (8, 180)
    assert rescore_run(source, source.parent / "out") == ["mqar_16", "mqar_32", "mqar_8"]
    rescored = json.loads((source.parent / "out" / source.name).read_text())["results"]
    for task in ("mqar_8", "mqar_16", "mqar_32"):
        for metric in (results_key("exact_match"), results_key("query_accuracy")):
            assert rescored[task][metric] == pytest.approx(published[task][metric]), (task, metric)
    mqar = rescored["mqar_8"]
    assert (mqar[results_key("exact_match")], mqar[results_key("query_accuracy")]) == (0.32, 0.9)


@pytest.mark.parametrize("damage, says", [
    ("doc 1's sample as doc_id 0", "the sample of doc_id 0 holds another doc than doc 0 this version draws "
                                   r"\(its prompt differs\)"),
    ("doc_id 999", r"doc_id 999 is not a doc of the run \(it scored docs 0 to 24\)"),
])
def test_a_sample_whose_doc_is_not_the_doc_of_its_doc_id_is_refused(tmp_path, damage, says):
    """Issue 45 finding 4: doc 0's sample replaced by another doc's, or a doc_id of no doc, was re-scored."""
    results = published_gemma_run(tmp_path)
    path = next(results.parent.glob("samples_random_copy_200_*.jsonl"))
    samples = [json.loads(line) for line in path.read_text().splitlines()]
    samples[0] = {**samples[1], "doc_id": 0} if damage.startswith("doc 1") else {**samples[0], "doc_id": 999}
    path.write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    with pytest.raises(RescoreRefused, match=f"random_copy_200: {says}"):
        rescore_run(results, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_docs_an_unsorted_samples_list_logs_are_matched_by_their_own_index():
    """lm-eval 0.4.13 logs `--samples [4, 2]`'s docs 2 and 4, in that order, as doc_ids 4 and 2."""
    drawn = task_rows("random_copy", 10, "generation", {"copy_tasks_docs": 5})
    results = {"configs": {"random_copy_10": {"metadata": {"copy_tasks_samples": [4, 2]}}}}
    logged = [{"doc_id": 4, "doc": drawn[2]}, {"doc_id": 2, "doc": drawn[4]}]
    assert check_sample_docs("random_copy_10", logged, drawn, results, Path("s.jsonl")) is None
    with pytest.raises(RescoreRefused, match="the sample of doc_id 2 holds doc 1, which the run did not score"):
        check_sample_docs("random_copy_10", [logged[0], {"doc_id": 2, "doc": drawn[1]}], drawn, results,
                          Path("s.jsonl"))
    with pytest.raises(RescoreRefused, match="holds doc 2, which doc_id 4 holds too"):
        check_sample_docs("random_copy_10", [logged[0], {"doc_id": 2, "doc": drawn[2]}], drawn, results,
                          Path("s.jsonl"))


def test_a_results_file_that_does_not_count_its_samples_is_refused(tmp_path):
    """Issue 45 finding 10: with n-samples deleted, a samples file cut to 3 of 25 lines was re-scored over 3."""
    results = published_gemma_run(tmp_path)
    data = json.loads(results.read_text())
    del data["n-samples"]
    results.write_text(json.dumps(data))
    samples = next(results.parent.glob("samples_random_copy_200_*.jsonl"))
    samples.write_text("\n".join(samples.read_text().splitlines()[:3]) + "\n")
    with pytest.raises(RescoreRefused, match="records no count of its samples"):
        rescore_run(results, tmp_path / "out")


@pytest.mark.slow  # an lm-eval run
def test_a_rescored_tasks_family_group_is_aggregated_again_as_lm_eval_aggregates_it(tmp_path):
    """Issue 51: after `copy-tasks rescore` a group's value stayed stale in the results file
    (`phonebook_copy` 1.0 while its tasks then averaged 0.909)."""
    from conftest import run_command

    EXACT, EXACT_STDERR = results_key("exact_match"), results_key("exact_match", stderr=True)  # noqa: N806

    run = tmp_path / "run"
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "dup_ngram_copy", "--limit", "2",
                          "--output_path", str(run), "--log_samples"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    (source,) = run.rglob("results_*.json")
    as_run = json.loads(source.read_text())
    assert as_run["results"]["dup_ngram_copy"][EXACT] == 1.0
    # One answer of dup_ngram_copy_1 stored wrong (as a version whose rule read it otherwise would have it)
    (samples_path,) = source.parent.glob("samples_dup_ngram_copy_1_*.jsonl")
    samples = [json.loads(line) for line in samples_path.read_text().splitlines()]
    samples[0]["filtered_resps"] = [" zz"]
    samples_path.write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    rescore_run(source, tmp_path / "rescored")
    results = json.loads((tmp_path / "rescored" / source.name).read_text())
    tasks = results["group_subtasks"]["dup_ngram_copy"]
    assert results["results"]["dup_ngram_copy_1"][EXACT] == 0.5
    for table in ("results", "groups"):
        group = results[table]["dup_ngram_copy"]
        assert group[EXACT] == pytest.approx(1 - 0.5 / len(tasks))  # the mean of its tasks, each 2 docs
        stderrs = [results["results"][task][EXACT_STDERR] for task in tasks]
        assert group[EXACT_STDERR] == pytest.approx(sum(value ** 2 for value in stderrs) ** 0.5
                                                                 / len(tasks))
        assert group["sample_len"] == as_run[table]["dup_ngram_copy"]["sample_len"]


def test_a_run_without_samples_is_refused_naming_log_samples(tmp_path):
    """Issue 51: rescoring a run without samples said "0 generation tasks re-scored" and copied
    its results as they were."""
    source = published_gemma_run(tmp_path)
    for path in source.parent.glob("samples_*.jsonl"):
        path.unlink()
    with pytest.raises(RescoreRefused, match="no samples file for .*run again with --log_samples"):
        rescore_run(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()
