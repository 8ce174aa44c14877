"""`copy-tasks export`: the docs our lm-eval tasks score, as a `datasets` folder that loads
offline, with the fingerprints a real lm-eval run records, the same bytes from any process,
and clear errors before anything is written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import offline_env
from export_fixtures import FAMILIES, LENGTHS, PINNED, export

from copy_tasks.probes.task_docs import task_rows

LOAD = """
import hashlib, json, sys
from pathlib import Path
from copy_tasks.export import export
from copy_tasks.probes.task_docs import docs_fingerprint
export({families!r}, {lengths!r}, "generation", {{"copy_tasks_docs": 5}}, Path({again!r}))
print(sorted(name for name in ("torch", "lm_eval", "transformers", "inspect_ai") if name in sys.modules))
import datasets
found = {{}}
for config in {families!r}:
    for split, rows in datasets.load_dataset({folder!r}, config).items():
        rows = list(rows)
        found[config + "/" + split] = [docs_fingerprint(rows), hashlib.sha256(json.dumps(rows).encode()).hexdigest()]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def loaded(exported) -> tuple[list[str], dict, Path]:
    """In a second process, offline: the export made again in-process (modules loaded), then the
    first export read back by `datasets.load_dataset`: each split's fingerprint and rows' hash."""
    again = exported.parent / "again" / exported.name  # the same folder name: the card names its folder
    code = LOAD.format(families=list(FAMILIES), lengths=list(LENGTHS), again=str(again), folder=str(exported))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=offline_env(),
                            cwd=exported.parent)
    assert result.returncode == 0, result.stderr[-3000:]
    modules, found = result.stdout.strip().splitlines()[-2:]
    return json.loads(modules.replace("'", '"')), json.loads(found), again


def test_the_folder_loads_offline_and_each_split_has_the_fingerprint_lm_eval_records(loaded):
    _, found, _ = loaded
    assert sorted(found) == [f"{family}/length_{length}" for family in FAMILIES for length in LENGTHS]
    for key, (fingerprint, _) in found.items():
        family, split = key.split("/")
        assert fingerprint == PINNED[f"{family}_{split.removeprefix('length_')}"], key


def test_rows_read_back_are_the_rows_the_tasks_score(loaded):
    import hashlib

    _, found, _ = loaded
    for family in FAMILIES:
        for length in LENGTHS:
            rows = task_rows(family, length, "generation", {"copy_tasks_docs": 5})
            assert found[f"{family}/length_{length}"][1] == hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def test_two_processes_write_the_same_bytes(exported, loaded):
    _, _, again = loaded
    files = sorted(path.relative_to(exported) for path in exported.rglob("*") if path.is_file())
    assert files == sorted(path.relative_to(again) for path in again.rglob("*") if path.is_file())
    assert len(files) == len(FAMILIES) * len(LENGTHS) + 2  # the splits, the card, the marker
    for name in files:
        assert (exported / name).read_bytes() == (again / name).read_bytes(), name


def test_the_exporter_loads_neither_lm_eval_nor_torch(loaded):
    assert loaded[0] == []


@pytest.mark.parametrize("args, says", [
    (["phonebook_cpy"], ["'phonebook_cpy'", "phonebook_copy, phonebook_query_first, random_copy"]),
    (["random_copy", "--lengths", "10,1"], ["copy_tasks_length=1", "from 2 to 100000"]),
    (["squad_length", "--lengths", "120"], ["no length 120", "100, 150, 200, 300, 1000"]),
    (["random_copy", "--variant", "tf"], ["'tf'", "'generation', 'teacher_forced'"]),
    (["random_copy", "--docs", "0"], ["copy_tasks_docs=0", "from 1 to 10000"]),
    (["random_copy", "--metadata", '{"copy_tasks_sed": 1}'], ["copy_tasks_sed=1", "copy_tasks_seed"]),
    (["random_copy", "--metadata", '{"pretrained": "x"}'], ["'pretrained'", "copy_tasks_seed"]),
    (["random_copy", "--docs-seed", "3", "--metadata", '{"copy_tasks_seed": 3}'], ["--docs-seed and --metadata"]),
    # Finding 6: lm-eval's --seed never changes our docs, export's did: one name, two meanings.
    (["random_copy", "--seed", "3"], ["--docs-seed", "lm-eval's --seed seeds its own sampling"]),
    (["c4_copy", "--metadata", '{"copy_tasks_text_source": "no/such/file.txt"}'],
     ["copy_tasks_text_source='no/such/file.txt'", "existing path"]),
])
def test_a_bad_value_is_one_line_naming_it_and_what_is_allowed_and_nothing_is_written(tmp_path, capsys, args, says):
    status, error = export([*args, "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    assert error.rstrip("\n").count("\n") == 0 or error.startswith("usage:"), error  # argparse prints its usage
    assert all(part in error for part in says), error
    assert not (tmp_path / "out").exists()


def test_families_that_need_a_download_take_the_tasks_source_options(tmp_path, capsys, local_sources):
    source = {"copy_tasks_text_source": local_sources["text_source"]}
    out = tmp_path / "c4"
    status, error = export(["c4_copy,c4_copy_shuffled", "--lengths", "25", "--docs", "5", "--variant", "teacher_forced",
                            "--metadata", json.dumps(source), "--out", str(out)], capsys)
    assert status == 0, error
    card = (out / "README.md").read_text()
    for config, task in (("c4_copy_tf", "c4_copy_tf_25"), ("c4_copy_shuffled_tf", "c4_copy_shuffled_tf_25")):
        assert (out / config / "length_25.parquet").exists()
        assert f"`{PINNED[task]}`" in card  # the docs of the teacher-forced tasks, on the same source
    source_file = Path(local_sources["text_source"])
    assert str(source_file) not in card and f"a local source `{source_file.name}`" in card


def test_a_family_named_twice_is_one_line(tmp_path, capsys):
    """Finding 12: `random_copy,random_copy` raised `ValueError: Split length_10 already present`."""
    status, error = export(["random_copy,random_copy", "--lengths", "10", "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and "random_copy named more than once" in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_plan_checks_its_families_and_lengths_without_task_names(monkeypatch):
    """Issue 43 finding 11: the export named its families' tasks only for the check to parse them back."""
    from copy_tasks.export import plan
    from copy_tasks.probes import run_checks
    from copy_tasks.probes.options import UserError

    def no_task_names(tasks):
        raise AssertionError(f"task names parsed back: {tasks}")

    monkeypatch.setattr(run_checks, "requested", no_task_names)
    assert [split.name for split in plan(["mqar"], [8], "generation", {"copy_tasks_docs": 2})] == ["length_8"]
    with pytest.raises(UserError, match="mqar_600 cannot be drawn: copy_tasks_mqar_format=zoology has 512"):
        plan(["mqar"], [600], "generation", {"copy_tasks_mqar_format": "zoology", "copy_tasks_docs": 2})
