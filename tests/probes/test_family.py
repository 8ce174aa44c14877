"""Every registered family satisfies the family contract (`family_contract.py`), and every
shipped family has its README and up-to-date YAMLs."""

from __future__ import annotations

import pytest
from conftest import source_options
from family_contract import CHECKS

from copy_tasks.probes.families import FAMILIES


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_contract(family, check, local_sources):
    check(FAMILIES[family], source_options(family, local_sources))
