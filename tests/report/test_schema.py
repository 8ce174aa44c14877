"""The CSV's schema (`copy_tasks.report.schema`)."""

from __future__ import annotations

from copy_tasks.report.schema import COLUMNS, NUMERIC_COLUMNS, UPGRADABLE_SCHEMAS, column_table


def test_the_columns_their_table_and_the_older_schemas():
    assert COLUMNS[:3] == ("schema_version", "run", "model") and COLUMNS[-1] == "source_file"
    assert {"value", "stderr", "length", "state_bits", "state_bits_per_token"} <= NUMERIC_COLUMNS
    assert "flags" not in NUMERIC_COLUMNS
    assert "name" not in UPGRADABLE_SCHEMAS["1"] and "state_bits" not in UPGRADABLE_SCHEMAS["2"]
    assert "state_bits_per_token" not in UPGRADABLE_SCHEMAS["3"] and "state_bits" in UPGRADABLE_SCHEMAS["3"]
    assert len(column_table().splitlines()) == 2 + len(COLUMNS)
