"""Adding a family is one module: a toy declared in `toy_family.py` appears in `copy-tasks
list`, in the generated YAMLs and in the family contract, and runs through lm-eval, with no
other edit."""

from __future__ import annotations

import shutil

import lm_eval
import pytest
from family_contract import CHECKS, check_names
from lm_eval.tasks import TaskManager

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)
from copy_tasks.cli import main
from copy_tasks.harness.registration import task_config_dir
from copy_tasks.harness.task_yamls import expected_files
from copy_tasks.probes.families import FAMILIES


@pytest.fixture
def toy():
    import toy_family

    FAMILIES[toy_family.FAMILY.name] = toy_family.FAMILY  # registered on first import; again after a teardown
    yield toy_family.FAMILY
    del FAMILIES[toy_family.FAMILY.name]


def test_the_toy_is_listed(toy, capsys):
    main(["list"])
    rows = [line.split()[:3] for line in capsys.readouterr().out.splitlines()]
    assert ["toy_digits_copy", "digits", "5,12"] in rows


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


def test_the_toy_runs_through_lm_eval(toy, tmp_path):
    for path, text in expected_files().items():
        if path.parts[0] == toy.folder:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
    for shared in ("_generation_template_yaml", "_teacher_forced_template_yaml"):
        shutil.copy(task_config_dir() / shared, tmp_path / shared)
    manager = TaskManager(include_path=str(tmp_path), include_defaults=False)
    results = lm_eval.simple_evaluate(model="ngram_copier", tasks=["toy_digits_copy", "toy_digits_copy_tf"],
                                      task_manager=manager, metadata={"copy_tasks_docs": 4})
    for task in ("toy_digits_copy_5", "toy_digits_copy_12", "toy_digits_copy_tf_12"):
        assert results["results"][task]["exact_match,none"] == 1.0
