"""Every registered family satisfies the family contract (`family_contract.py`), and every
shipped family has its README and up-to-date YAMLs."""

from __future__ import annotations

import pytest
from conftest import source_options
from family_contract import CHECKS, check_names

from copy_tasks.harness.registration import task_config_dir
from copy_tasks.harness.task_yamls import stale_files
from copy_tasks.probes.families import FAMILIES


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_names(family):
    check_names(FAMILIES[family])


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_contract(family, check, local_sources):
    check(FAMILIES[family], source_options(family, local_sources))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_shipped_family_has_its_readme(family):
    assert (task_config_dir() / FAMILIES[family].data_name / "README.md").is_file()


def test_generated_yamls_are_up_to_date():
    assert stale_files(task_config_dir()) == []
