"""`copy-tasks export`: the docs our lm-eval tasks score, as a `datasets` folder that loads
offline, with the fingerprints a real lm-eval run records, the same bytes from any process,
and clear errors before anything is written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import offline_env, read_results, run_command

from copy_tasks import cli
from copy_tasks.export.folder import MARKER
from copy_tasks.probes.task_docs import task_rows

PINNED = json.loads((Path(__file__).parent / "docs_fingerprints.json").read_text())  # 5 docs per task
FAMILIES = ("phonebook_copy", "random_copy")
LENGTHS = (10, 20)
ARGS = [",".join(FAMILIES), "--lengths", ",".join(map(str, LENGTHS)), "--docs", "5"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """Both families at two lengths, 5 docs each, written by the command in its own process."""
    out = tmp_path_factory.mktemp("export") / "docs"
    result = run_command(["copy-tasks", "export", *ARGS, "--out", str(out)], cwd=out.parent)
    assert result.returncode == 0, result.stderr
    assert "datasets.load_dataset" in result.stdout
    return out


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
    again = exported.parent / "again"
    code = LOAD.format(families=list(FAMILIES), lengths=list(LENGTHS), again=str(again), folder=str(exported))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=offline_env(),
                            cwd=exported.parent)
    assert result.returncode == 0, result.stderr[-3000:]
    modules, found = result.stdout.strip().splitlines()[-2:]
    return json.loads(modules.replace("'", '"')), json.loads(found), again


def card_row(family: str, length: int, sha256: str) -> str:
    """The card's provenance line of a split of 5 docs made with the defaults."""
    options = "copy_tasks_copy_format = `natural`" if family == "random_copy" else "none"
    return f"| {family} | length_{length} | 5 | 1234 | 1.0 | 3.1 | {options} | `{sha256}` |"


def header(folder: Path) -> dict:
    card = (folder / "README.md").read_text()
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


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


def test_the_card_names_every_split_and_its_features_and_says_how_the_docs_were_made(exported):
    meta = header(exported)
    assert meta["license"] == "mit" and meta["task_categories"] == ["text-generation"] and meta["pretty_name"]
    assert [config["config_name"] for config in meta["configs"]] == list(FAMILIES)
    for config in meta["configs"]:
        assert config["data_files"] == [{"split": f"length_{length}", "path": f"{config['config_name']}/length_"
                                         f"{length}.parquet"} for length in LENGTHS]
    for info in meta["dataset_info"]:
        columns = [feature["name"] for feature in info["features"]]
        assert columns == list(task_rows(info["config_name"], 10, "generation", {"copy_tasks_docs": 1})[0])
        assert [(split["name"], split["num_examples"]) for split in info["splits"]] == [
            (f"length_{length}", 5) for length in LENGTHS]
    card = (exported / "README.md").read_text()
    assert "arXiv:2402.01032" in card and "eprint        = {2402.01032}" in card and "copy_tasks.score(" in card
    for family in FAMILIES:
        for length in LENGTHS:
            assert card_row(family, length, PINNED[f"{family}_{length}"]) in card
    assert json.loads((exported / MARKER).read_text())["files"][-1] == "README.md"


def export(args: list[str], capsys) -> tuple[int, str]:
    """Run `copy-tasks export ARGS` in this process: (exit status, stderr)."""
    try:
        cli.main(["export", *args])
    except SystemExit as exit:
        return exit.code, capsys.readouterr().err
    return 0, capsys.readouterr().err


@pytest.mark.parametrize("args, says", [
    (["phonebook_cpy"], ["'phonebook_cpy'", "phonebook_copy, random_copy"]),
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


def test_a_folder_the_command_did_not_write_is_refused_and_left_as_it_was(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    status, error = export(["random_copy", "--lengths", "10", "--docs", "2", "--out", str(tmp_path)], capsys)
    assert status == 2 and "notes.txt" in error and "did not write" in error
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


def test_an_earlier_export_is_replaced_and_nothing_else_is_touched(tmp_path, capsys):
    out = tmp_path / "docs"
    few = ["--docs", "2", "--out", str(out)]
    assert export(["random_copy,phonebook_copy", "--lengths", "10,20", *few], capsys)[0] == 0
    assert export(["random_copy", "--lengths", "10", *few], capsys)[0] == 0
    assert sorted(str(path.relative_to(out)) for path in out.rglob("*")) == [
        MARKER, "README.md", "random_copy", "random_copy/length_10.parquet"]
    (out / "random_copy" / "mine.txt").write_text("mine")  # now the folder holds a file of someone else's
    status, error = export(["random_copy", "--lengths", "10", *few], capsys)
    assert status == 2 and "random_copy/mine.txt" in error
    assert (out / "random_copy" / "length_10.parquet").exists() and (out / "README.md").exists()


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


@pytest.mark.slow
def test_the_fingerprints_equal_those_a_real_lm_eval_run_records(exported, tmp_path):
    tasks = [f"{family}_{LENGTHS[0]}" for family in FAMILIES]
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", ",".join(tasks), "--metadata",
                          json.dumps({"copy_tasks_docs": 5}), "--output_path", str(tmp_path)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    configs = read_results(tmp_path)[0]["configs"]
    card = (exported / "README.md").read_text()
    for family in FAMILIES:
        recorded = configs[f"{family}_{LENGTHS[0]}"]["metadata"]["copy_tasks_docs_sha256"]
        assert card_row(family, LENGTHS[0], recorded) in card


def test_a_family_named_twice_is_one_line(tmp_path, capsys):
    """Finding 12: `random_copy,random_copy` raised `ValueError: Split length_10 already present`."""
    status, error = export(["random_copy,random_copy", "--lengths", "10", "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and "random_copy named more than once" in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_export_writes_nothing_behind_a_symbolic_link(tmp_path, capsys):
    """Finding 7: `out/random_copy -> ../victim` passed the check and victim/length_10.parquet was overwritten."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "length_10.parquet").write_text("the victim's")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "random_copy").symlink_to(victim, target_is_directory=True)
    status, error = export(["random_copy", "--lengths", "10", "--docs", "2", "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and "symbolic link" in error and "random_copy" in error
    assert (victim / "length_10.parquet").read_text() == "the victim's"
    (tmp_path / "link").symlink_to(victim, target_is_directory=True)  # --out itself a link
    status, error = export(["random_copy", "--lengths", "10", "--docs", "2", "--out", str(tmp_path / "link")], capsys)
    assert status == 2 and "symbolic link" in error and sorted(path.name for path in victim.iterdir()) == [
        "length_10.parquet"]


def test_a_failed_export_leaves_the_earlier_one_whole(tmp_path, capsys, monkeypatch):
    """Finding 8: the earlier export was deleted first, so a full disk left a truncated file and no marker,
    and the next export refused the folder as holding files it did not write."""
    import pyarrow.parquet

    out = tmp_path / "docs"
    few = ["--docs", "2", "--out", str(out)]
    assert export(["random_copy", "--lengths", "10,20", *few], capsys)[0] == 0
    before = {path.relative_to(out): path.read_bytes() for path in out.rglob("*") if path.is_file()}
    real = pyarrow.parquet.write_table

    def disk_full(table, where, *args, **kwargs):
        if str(where).endswith("length_20.parquet"):
            Path(where).write_bytes(b"PAR1 trunc")
            raise OSError(28, "No space left on device")
        return real(table, where, *args, **kwargs)

    monkeypatch.setattr(pyarrow.parquet, "write_table", disk_full)
    status, error = export(["random_copy", "--lengths", "10,20", "--docs-seed", "7", *few], capsys)
    assert status != 0 and "No space left" in error
    assert {path.relative_to(out): path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["docs"]  # no staging folder left behind
    monkeypatch.setattr(pyarrow.parquet, "write_table", real)
    assert export(["random_copy", "--lengths", "10", *few], capsys)[0] == 0  # the marker still vouches for it


@pytest.mark.parametrize("files", [[1], None, "README.md", ["../elsewhere.txt"], ["/etc/passwd"]])
def test_a_damaged_marker_is_one_line(tmp_path, capsys, files):
    """Finding 13: a marker holding {"files": [1]} or {"files": null} raised TypeError."""
    out = tmp_path / "docs"
    out.mkdir()
    (out / MARKER).write_text(json.dumps({"files": files}))
    status, error = export(["random_copy", "--lengths", "10", "--docs", "2", "--out", str(out)], capsys)
    assert status == 2 and "damaged" in error and MARKER in error and error.count("\n") == 1
    assert [path.name for path in out.iterdir()] == [MARKER]
