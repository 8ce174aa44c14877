"""End-to-end: squad_length through `lm_eval` from a local SQuAD file."""

from __future__ import annotations

import json

import pytest
from conftest import read_results, run_command
from squad_fixture import write_squad_file

from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.families.squad_length.scoring import score_squad
from copy_tasks.report.rescore import answers_of

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end


@pytest.fixture
def squad_file(tmp_path):
    return str(write_squad_file(tmp_path / "dev-v2.0.json"))


def test_squad_end_to_end_through_lm_eval_from_a_local_file(tiny_models, tmp_path, squad_file):
    out = tmp_path / "out"
    run = run_command([
        "lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_models['gpt_neox']}", "--device", "cpu",
        "--tasks", "squad_length_100,squad_length_tf_100",
        "--metadata", json.dumps({"copy_tasks_squad_source": squad_file, "copy_tasks_docs": 3}),
        "--output_path", str(out), "--log_samples",
    ], cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    results, samples = read_results(out)
    generation, forced = results["results"]["squad_length_100"], results["results"]["squad_length_tf_100"]
    assert {results_key("exact_match"), results_key("f1"), results_key("overflow")} <= set(generation)
    assert {results_key("exact_match"), results_key("logprob"), results_key("bits_per_char")} <= set(forced)
    assert len(samples["squad_length_100"]) == 3
    for sample in samples["squad_length_100"]:
        expected = score_squad(answers_of(sample, 0, "squad_length_100", "samples")[0], sample["doc"]["answers"])
        assert sample["f1"] == pytest.approx(expected["f1"])
    assert results["configs"]["squad_length_100"]["metadata"]["copy_tasks_docs_sha256"]
