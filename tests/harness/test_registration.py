"""Our tasks are found by lm-eval without flags, beside a user's own --include_path."""

from __future__ import annotations

import configparser
import importlib
import logging
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

import copy_tasks
from copy_tasks.harness import lm_eval_internals as internals
from copy_tasks.harness import registration
from copy_tasks.harness.registration import task_config_dir, with_our_tasks
from copy_tasks.models import BACKENDS, register_backends
from copy_tasks.probes.families import FAMILIES, UMBRELLA_GROUPS


def all_task_names() -> set[str]:
    names = set()
    for path in task_config_dir().rglob("*.yaml"):
        config = yaml.load(path.read_text(), Loader=yaml.BaseLoader)
        names.add(config.get("task") if isinstance(config.get("task"), str) else config["group"])
    return names


def test_yaml_tasks_match_the_family_table():
    expected = set(UMBRELLA_GROUPS)
    for family in FAMILIES.values():
        expected |= {family.name, family.name + "_tf"}
        for length in family.lengths:
            expected |= {family.task_name(length), family.task_name(length, teacher_forced=True)}
    assert all_task_names() == expected


def test_our_folder_goes_right_after_the_builtin_one_and_only_once(tmp_path):
    builtin, user = tmp_path / "lm_eval_tasks", tmp_path / "mine"
    ours = task_config_dir()
    assert with_our_tasks([builtin, user], builtin) == [builtin, ours.resolve(), user]
    # lm-eval honouring an entry point (or a user passing our folder) indexes it once.
    assert with_our_tasks([builtin, ours, user], builtin) == [builtin, ours, user]
    assert with_our_tasks([builtin, user, ours], builtin) == [builtin, ours.resolve(), user]
    # Without lm-eval's built-in tasks (include_defaults=False) we add nothing.
    assert with_our_tasks([user], builtin) == [user]


def test_task_manager_api_includes_our_tasks_and_user_tasks(tmp_path):
    (tmp_path / "mine.yaml").write_text("task: my_task\ndataset_path: json\noutput_type: loglikelihood\n")
    manager = copy_tasks.task_manager(include_path=str(tmp_path))
    assert {"phonebook_copy", "phonebook_copy_tf_1000", "copy_tasks_offline", "my_task"} <= set(
        manager.all_tasks)
    index = internals.task_index_of(manager)
    assert Path(index["phonebook_copy_20"].yaml_path).is_relative_to(task_config_dir())


def test_wheel_ships_task_configs_the_pth_file_and_our_backends_as_lm_eval_model_plugins(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True)
    wheel = zipfile.ZipFile(next(tmp_path.glob("copy_tasks-*.whl")))
    names = wheel.namelist()
    # The model-plugin entry points (for an lm-eval that loads model plugins): each of our backends
    # but the conformance battery's, each naming the class our registration enters under that name.
    entry_points = configparser.ConfigParser(delimiters=("=",))
    entry_points.read_string(wheel.read(next(name for name in names if name.endswith("/entry_points.txt"))).decode())
    plugins = {name: target.strip() for name, target in entry_points[internals.MODEL_PLUGIN_GROUP].items()}
    assert plugins == {name: target for name, target in BACKENDS.items() if name != "scripted"}
    from lm_eval.api.registry import get_model

    register_backends()
    for name, target in plugins.items():
        module, attribute = target.split(":")
        assert getattr(importlib.import_module(module), attribute) is get_model(name)
    assert "copy_tasks.pth" in names
    assert "copy_tasks/task_configs/phonebook_copy/phonebook_copy_1000.yaml" in names
    assert "copy_tasks/task_configs/_generation_template_yaml" in names
    assert "copy_tasks/probes/data/census1990_last.tsv.gz" in names


def test_an_editable_wheel_carries_the_start_up_hook_and_no_package_folder(tmp_path):
    """pip uninstall of an editable install must leave no `copy_tasks/` folder behind (it would
    import as an empty namespace package)."""
    build = "import sys; from hatchling.build import build_editable; print(build_editable(sys.argv[1]))"
    name = subprocess.run([sys.executable, "-c", build, str(tmp_path)], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip().splitlines()[-1]
    names = zipfile.ZipFile(tmp_path / name).namelist()
    assert "copy_tasks.pth" in names
    assert not [member for member in names if member.startswith("copy_tasks/")]


def test_simple_evaluate_takes_our_options_through_the_task_manager_and_refuses_them_beside_it():
    """Finding 5: `simple_evaluate(..., task_manager=copy_tasks.task_manager(), metadata={"copy_tasks_docs": 5})`
    ran 200 docs: lm-eval drops metadata= when it is given a task manager."""
    import lm_eval

    from copy_tasks.models import register_backends
    from copy_tasks.probes.options import UserError

    register_backends()
    with pytest.raises(UserError, match="lm-eval drops metadata when it is given a task manager"):
        lm_eval.simple_evaluate(model="ngram_copier", tasks=["random_copy_10"],
                                task_manager=copy_tasks.task_manager(), metadata={"copy_tasks_docs": 5})
    results = lm_eval.simple_evaluate(model="ngram_copier", tasks=["random_copy_10"],
                                      task_manager=copy_tasks.task_manager(metadata={"copy_tasks_docs": 5}))
    assert results["n-samples"]["random_copy_10"]["effective"] == 5


def test_a_response_cache_beside_a_model_object_is_refused_before_anything_runs(tmp_path):
    """lm-eval's `use_cache` keys answers by request alone, and copy-tasks keeps each model's
    apart by its name and arguments (issue 45 finding 5), which a model object does not give."""
    import lm_eval
    from lm_eval.api.registry import get_model

    from copy_tasks.probes.options import UserError

    with pytest.raises(UserError, match=r"simple_evaluate\(model=<DummyLM object>, use_cache='.*U'\): lm-eval's "
                                        "response cache keys answers by request alone"):
        lm_eval.simple_evaluate(model=get_model("dummy")(), tasks=["random_copy_10"], use_cache=str(tmp_path / "U"))
    assert not list(tmp_path.iterdir())


# ---- the start-up hook and the model cache --------------------------------------------------
def test_a_patch_that_fails_leaves_lm_eval_untouched_and_says_why(caplog):
    renamed = types.ModuleType(internals.INDEX_MODULE)
    renamed.__file__ = "/nowhere/_index.py"
    renamed.RenamedTaskIndex = object  # no TaskIndex
    with caplog.at_level(logging.WARNING, logger="copy_tasks"):
        registration.patch(renamed)
    assert f"could not hook into {internals.INDEX_MODULE} (AttributeError" in caplog.text
    assert "left as lm-eval made it" in caplog.text and not hasattr(renamed, "TaskIndex")
