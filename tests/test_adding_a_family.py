"""Adding a family is one module and a README: a toy declared in `toy_family.py` (README
`toy_family_README.md`) appears in `copy-tasks list` and the families table, in the generated
YAMLs, in the family contract, in the conformance battery and in the suite's plans, and runs
through lm-eval, with no other edit."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import lm_eval
import pytest
from family_contract import CHECKS, check_names
from lm_eval.tasks import TaskManager

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)
import copy_tasks.models.scripted_lm  # noqa: F401  (registers scripted)
from copy_tasks.cli import main
from copy_tasks.experiments.suite import plan
from copy_tasks.experiments.tiny_models import build_tokenizer
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.harness.registration import task_config_dir
from copy_tasks.harness.task_yamls import expected_files
from copy_tasks.probes.conformance import STYLES, scoring_groups, write_answer_key
from copy_tasks.probes.families import FAMILIES, family_table
from copy_tasks.probes.task_docs import generate_docs

HERE = Path(__file__).resolve().parent


@pytest.fixture
def toy():
    # registered for the whole run by the tests' conftest (benchmarks/bench_family_cost.py): kept
    registered = "toy_family" in sys.modules and sys.modules["toy_family"].FAMILY.name in FAMILIES
    import toy_family

    FAMILIES[toy_family.FAMILY.name] = toy_family.FAMILY  # registered on first import; again after a teardown
    generate_docs.cache_clear()
    yield toy_family.FAMILY
    if not registered:
        del FAMILIES[toy_family.FAMILY.name]


TOY_ROW = "| `toy_digits_copy` | a string of random digits | digits | 5, 12 | 200 | `toy_digits_copy_tf` | no |"


def test_the_toy_is_listed(toy, capsys):
    main(["list"])
    assert TOY_ROW in capsys.readouterr().out.splitlines()
    assert TOY_ROW in family_table().splitlines()


def test_the_toy_is_in_the_suites_plans(toy):
    quick = {run.label: run for run in plan("quick")}
    assert {"toy_digits_copy_5", "toy_digits_copy_12", "toy_digits_copy_tf_12"} <= set(quick["ngram_copier"].tasks)
    gemma = quick["gemma-3-270m"]
    assert {"toy_digits_copy_tf_5", "toy_digits_copy_tf_12"} <= set(gemma.tasks)  # its shortest two by default
    assert "toy_digits_copy_5" not in gemma.tasks  # teacher-forced only by default


def test_the_toy_is_in_the_battery_with_its_scoring_group(toy):
    assert "toy_digits_copy" in scoring_groups()["copies"]
    for style in STYLES.values():
        assert style.expected("toy_digits_copy", False) == style.expected("random_copy", False)


def test_the_toy_gets_its_yamls(toy):
    files = {str(path) for path in expected_files()}
    assert {"toy_digits_copy/_toy_digits_copy_generation_yaml", "toy_digits_copy/toy_digits_copy_12.yaml",
            "toy_digits_copy/toy_digits_copy_tf_5.yaml", "toy_digits_copy/_toy_digits_copy_tf.yaml"} <= files


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_toy_meets_the_family_contract(toy, check):
    check_names(toy)
    if check.__name__ == "check_determinism_across_processes":
        check(toy, (), modules=("toy_family",))
    else:
        check(toy, ())


@pytest.fixture
def toy_tasks(toy, tmp_path) -> Path:
    """A task folder holding the toy's as a new family's would ship: its generated YAMLs and its
    README."""
    for path, text in expected_files().items():
        if path.parts[0] == toy.data_name:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
    shutil.copy(HERE / "toy_family_README.md", tmp_path / toy.data_name / "README.md")
    for shared in ("_generation_template_yaml", "_teacher_forced_template_yaml"):
        shutil.copy(task_config_dir() / shared, tmp_path / shared)
    return tmp_path


def manager(folder: Path, docs: int) -> TaskManager:
    return TaskManager(include_path=str(folder), include_defaults=False, metadata={"copy_tasks_docs": docs})


def test_the_toy_runs_through_lm_eval(toy_tasks):
    results = lm_eval.simple_evaluate(model="ngram_copier", tasks=["toy_digits_copy", "toy_digits_copy_tf"],
                                      task_manager=manager(toy_tasks, 4))
    for task in ("toy_digits_copy_5", "toy_digits_copy_12", "toy_digits_copy_tf_12"):
        assert results["results"][task][results_key("exact_match")] == 1.0


@pytest.mark.parametrize("style", ["eos", "restated_start", "first_wrong"])
def test_the_battery_gives_the_toy_its_groups_verdicts(toy, toy_tasks, tmp_path, style):
    tasks = ["toy_digits_copy_5", "toy_digits_copy_tf_5"]
    docs = generate_docs("toy_digits_copy", 5, 1234, 3)
    tokenizer = build_tokenizer([doc["prompt"] + doc["continuation"] for doc in docs], vocab_size=300)
    tokenizer.save_pretrained(tmp_path / "tokenizer")
    key = write_answer_key(docs, tmp_path / "answers.json")
    assert all(len(tokenizer(doc["continuation"])["input_ids"]) < len(doc["continuation"]) for doc in docs)
    results = lm_eval.simple_evaluate(model="scripted", tasks=tasks, task_manager=manager(toy_tasks, 3),
                                      model_args=f"style={style},answers={key},tokenizer={tmp_path / 'tokenizer'}")[
                                          "results"]
    assert results["toy_digits_copy_5"][results_key("exact_match")] == STYLES[style].expected("toy_digits_copy", False)
    assert results["toy_digits_copy_5"][results_key("authors_exact_match")] == STYLES[style].expected(
        "toy_digits_copy", False, authors=True)
    assert results["toy_digits_copy_tf_5"][results_key("exact_match")] == STYLES[style].expected("toy_digits_copy",
                                                                                                   True)
