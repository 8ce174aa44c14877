"""The family table (`copy_tasks.probes.families`): names, and a README for every shipped family."""

from __future__ import annotations

import pytest
from family_contract import check_names

from copy_tasks.harness.registration import task_config_dir
from copy_tasks.probes.families import FAMILIES


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_names(family):
    check_names(FAMILIES[family])


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_shipped_family_has_its_readme(family):
    assert (task_config_dir() / FAMILIES[family].data_name / "README.md").is_file()


def test_the_readmes_links_lead_to_files_and_what_every_family_shares_is_said_once():
    import re

    from copy_tasks.harness.registration import task_config_dir

    readmes = sorted({task_config_dir() / family.data_name / "README.md" for family in FAMILIES.values()})
    for readme in readmes:
        for target in re.findall(r"\]\((\.\./[^)#]+)", readme.read_text()):
            assert (readme.parent / target).is_file(), (readme, target)
    shared = "Budgets are fitted to the room the prompt leaves in the context of the backend"
    assert [readme for readme in readmes if shared in " ".join(readme.read_text().split())] == []
    assert shared in " ".join((task_config_dir() / "CHANGELOG.md").read_text().split())
