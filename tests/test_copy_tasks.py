"""The package's own names (`copy_tasks`): its version is the installed distribution's, importing
it loads nothing else, and the public names (`score`, `score_teacher_forced`, `task_config_dir`,
`task_manager`, `register_architectures`) are the objects of the modules that define them,
loaded only when first used; any other name is an AttributeError naming it."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import subprocess
import sys

import pytest
from packaging.version import Version

import copy_tasks

LAZY_NAMES = {
    "questions": ("copy_tasks.probes.public_scorer", "questions"),
    "score": ("copy_tasks.probes.public_scorer", "score"),
    "score_teacher_forced": ("copy_tasks.probes.public_scorer", "score_teacher_forced"),
    "task_config_dir": ("copy_tasks.harness.registration", "task_config_dir"),
    "task_manager": ("copy_tasks.harness.startup", "task_manager"),
    "register_architectures": ("copy_tasks.models.trained_architectures", "register"),
}

IMPORT_THEN_SCORE = (
    "import sys\n"
    "import copy_tasks\n"
    "print(sorted(name for name in sys.modules if name.startswith('copy_tasks') or name in ('numpy', 'torch')))\n"
    "copy_tasks.score\n"
    "print('copy_tasks.probes.public_scorer' in sys.modules)"
)


def test_the_version_is_the_installed_distributions():
    assert copy_tasks.__version__ == importlib.metadata.version("copy-tasks")
    assert str(Version(copy_tasks.__version__)) == copy_tasks.__version__  # a normalised PEP 440 version


def test_importing_the_package_loads_nothing_until_a_public_name_is_used():
    # The start-up hook switched off: it would load the import watcher, which is not the package's own doing.
    result = subprocess.run([sys.executable, "-c", IMPORT_THEN_SCORE], capture_output=True, text=True, check=True,
                            env=dict(os.environ, COPY_TASKS_AUTOREGISTER="0"))
    assert result.stdout.splitlines() == ["['copy_tasks']", "True"]


@pytest.mark.parametrize("name", sorted(LAZY_NAMES))
def test_a_public_name_is_the_object_of_the_module_that_defines_it(name):
    module, attribute = LAZY_NAMES[name]
    assert getattr(copy_tasks, name) is getattr(importlib.import_module(module), attribute)


def test_a_star_import_gives_exactly_the_public_names():
    namespace: dict = {}
    exec("from copy_tasks import *", namespace)
    assert set(namespace) - {"__builtins__"} == {"__version__", *LAZY_NAMES} == set(copy_tasks.__all__)


def test_any_other_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="module 'copy_tasks' has no attribute 'scorer'"):
        copy_tasks.scorer  # noqa: B018
    assert not hasattr(copy_tasks, "TaskManager")
    with pytest.raises(ImportError, match="scorer"):
        exec("from copy_tasks import scorer", {})
