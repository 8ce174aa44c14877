"""The export folder (`copy_tasks.export.folder`): refused unless the exporter wrote it, replaced
whole or not at all, never behind a link."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_fixtures import export

from copy_tasks.export.folder import MARKER


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
