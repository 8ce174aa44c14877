"""The start-up hook's switch (`copy_tasks.harness.switches`)."""

from __future__ import annotations

from conftest import TESTS

HERE = TESTS


def test_the_pth_switch_values_are_the_hooks():
    from copy_tasks.harness.startup import OFF_VALUES

    line = (HERE.parent / "packaging" / "copy_tasks.pth").read_text()
    assert set(line.split("not in (")[1].split(")")[0].replace("'", "").replace(" ", "").split(",")) == OFF_VALUES
