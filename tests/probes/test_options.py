"""Bad input fails early with a message naming the key, the value and what is allowed."""

from __future__ import annotations

import json

import pytest
from conftest import run_command

from copy_tasks.harness.yaml_functions import build_dataset
from copy_tasks.probes.families import FAMILIES, task_settings
from copy_tasks.probes.options import OptionError


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"copy_tasks_seed": -1},
         "copy_tasks_seed=-1 is not allowed: the data seed must be an integer from 0 to 9223372036854775807"),
        ({"copy_tasks_seed": 10**30}, f"copy_tasks_seed={10**30} is not allowed"),
        ({"copy_tasks_seed": "abc"}, "copy_tasks_seed='abc' is not allowed"),
        ({"copy_tasks_seed": 1.5}, "copy_tasks_seed=1.5 is not allowed"),
        ({"copy_tasks_seed": True}, "copy_tasks_seed=True is not allowed"),
        ({"copy_tasks_docs": 0},
         "copy_tasks_docs=0 is not allowed: the number of docs per task must be an integer from 1 to 10000"),
        ({"copy_tasks_docs": 1_000_000_000}, "copy_tasks_docs=1000000000 is not allowed"),
        ({"copy_tasks_docs": -5}, "copy_tasks_docs=-5 is not allowed"),
        ({"copy_tasks_docs": 2.5}, "copy_tasks_docs=2.5 is not allowed"),
        ({"copy_tasks_sed": 3},
         "unknown option copy_tasks_sed=3: copy-tasks accepts copy_tasks_copy_format, copy_tasks_docs, "),
        ({"copy_tasks_lookup_format": "json"},
         "copy_tasks_lookup_format='json' is not allowed: the lookup prompt format must be one of natural, paper"),
        ({"copy_tasks_lookup_key_length": 0},
         "copy_tasks_lookup_key_length=0 is not allowed: the key length n (letters) must be an integer from 1 to 16"),
        ({"copy_tasks_lookup_answer_length": 17}, "copy_tasks_lookup_answer_length=17 is not allowed"),
    ],
)
@pytest.mark.parametrize("family", ["phonebook_copy", "lookup_suffix"])
def test_bad_options_are_named(metadata, message, family):
    with pytest.raises(OptionError) as error:
        task_settings(FAMILIES[family], metadata)
    assert message in str(error.value)


def test_other_suites_keys_pass_through_and_defaults_fill_in():
    settings = task_settings(FAMILIES["phonebook_copy"],
                             {"max_seq_lengths": [4096], "pretrained": "x", "copy_tasks_seed": "7"})
    assert (settings.seed, settings.docs, settings.doc_options) == (7, 200, ())


@pytest.mark.parametrize(
    ("length", "message"),
    [
        (-20, "copy_tasks_length=-20 is not allowed: a phonebook_copy length (entries) must be an integer from 3"),
        (2.5, "copy_tasks_length=2.5 is not allowed"),
        ("ten", "copy_tasks_length='ten' is not allowed"),
        (2, "copy_tasks_length=2 is not allowed: a phonebook_copy length (entries) must be an integer from 3 to "
            "100000"),
    ],
)
def test_bad_lengths_are_named(length, message):
    with pytest.raises(OptionError) as error:
        build_dataset("phonebook_copy", length, "generation", version=1.0)
    assert message in str(error.value)


ENTRY_POINTS = {"lm_eval": ["lm_eval"], "copy-tasks run": ["copy-tasks", "run"],
                "python -m lm_eval run": ["python", "-m", "lm_eval", "run"]}


def run_without_a_model(tmp_path, entry_point: str, *args: str):
    """lm-eval with a model that does not exist: an error must come before it tries to load it."""
    return run_command([*ENTRY_POINTS[entry_point], "--model", "hf", "--model_args",
                        f"pretrained={tmp_path / 'no-model'}", *args], cwd=tmp_path)


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_every_entry_point_checks_options_before_loading_a_model(tmp_path, entry_point):
    result = run_without_a_model(tmp_path, entry_point, "--tasks", "phonebook_copy_20", "--metadata",
                                 '{"copy_tasks_docs": -5}')
    assert result.returncode == 2
    assert "copy_tasks_docs=-5 is not allowed" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ("copy_tasks_seed=x1", "copy_tasks_seed='x1' is not allowed"),
        ('{"copy_tasks_docs_count": 5}', "unknown option copy_tasks_docs_count=5"),
        ('{"copy_tasks_limit": 5}', "copy_tasks_limit=5 is not an option: it is recorded by copy-tasks in the results"),
        ('{"copy_tasks_docs": 1000000000}', "copy_tasks_docs=1000000000 is not allowed: the number of docs per "
                                            "task must be an integer from 1 to 10000"),
        (f'{{"copy_tasks_seed": {10**30}}}', f"copy_tasks_seed={10**30} is not allowed"),
        ('{"copy_tasks_length": 5}', "copy_tasks_length=5 is not an option: it is set by each task's YAML"),
        ('{"copy_tasks_variant": "x"}', "copy_tasks_variant='x' is not an option: it is set by each task's YAML"),
        ('{"copy_tasks_family": "x"}', "copy_tasks_family='x' is not an option"),
        ('{"copy_tasks_docs_sha256": "x"}', "copy_tasks_docs_sha256='x' is not an option: it is recorded by "
                                            "copy-tasks in the results"),
    ],
)
def test_cli_rejects_bad_metadata_before_loading_a_model(tmp_path, metadata, message):
    result = run_without_a_model(tmp_path, "python -m lm_eval run", "--tasks", "phonebook_copy_20",
                                 "--metadata", metadata)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("content", "message"), [
    (b"\x00\x9f\x92\x96 binary \xff", "is not UTF-8 text"),
    ("caf\u00e9 au lait ".encode("latin-1") * 5, "is not UTF-8 text"),
    (b"only five words in here", "has 5 words, fewer than the 1000 of the longest passage asked for"),
])
def test_a_text_source_that_cannot_serve_the_tasks_is_refused_before_the_model(tmp_path, content, message):
    source = tmp_path / "text.txt"
    source.write_bytes(content)
    result = run_without_a_model(tmp_path, "lm_eval", "--tasks", "c4_copy_25,c4_copy_1000", "--metadata",
                                 json.dumps({"copy_tasks_text_source": str(source)}))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("content", [b"\xff\xfe{not json", b"[" * 5000 + b"]" * 5000, b'{"version": "v2"}'])
def test_a_squad_source_that_cannot_be_read_is_refused_before_the_model(tmp_path, content):
    source = tmp_path / "dev.json"
    source.write_bytes(content)
    result = run_without_a_model(tmp_path, "lm_eval", "--tasks", "squad_length_100", "--metadata",
                                 json.dumps({"copy_tasks_squad_source": str(source)}))
    assert result.returncode == 2
    assert "not a SQuAD-format" in result.stderr and "Traceback" not in result.stderr


def test_docs_given_as_plus_5_is_5(tmp_path):
    from copy_tasks.probes.families import FAMILIES, task_settings

    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": 5.0}).docs == 5
    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": "+5"}).docs == 5
