"""Bad input fails early with a message naming the key, the value and what is allowed."""

from __future__ import annotations

import pytest
from conftest import run_command

from copy_tasks.families import FAMILIES, task_settings
from copy_tasks.harness.yaml_functions import build_dataset
from copy_tasks.options import OptionError


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"copy_tasks_seed": -1}, "copy_tasks_seed=-1 is not allowed: the data seed must be an integer >= 0"),
        ({"copy_tasks_seed": "abc"}, "copy_tasks_seed='abc' is not allowed"),
        ({"copy_tasks_seed": 1.5}, "copy_tasks_seed=1.5 is not allowed"),
        ({"copy_tasks_seed": True}, "copy_tasks_seed=True is not allowed"),
        ({"copy_tasks_docs": 0},
         "copy_tasks_docs=0 is not allowed: the number of docs per task must be an integer >= 1"),
        ({"copy_tasks_docs": -5}, "copy_tasks_docs=-5 is not allowed"),
        ({"copy_tasks_docs": 2.5}, "copy_tasks_docs=2.5 is not allowed"),
        ({"copy_tasks_sed": 3}, "unknown option copy_tasks_sed=3: copy-tasks accepts copy_tasks_docs, "),
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
        (-20, "copy_tasks_length=-20 is not allowed: the task length must be an integer >= 1"),
        (2.5, "copy_tasks_length=2.5 is not allowed"),
        ("ten", "copy_tasks_length='ten' is not allowed"),
        (2, "copy_tasks_length=2 is not allowed for phonebook_copy: lengths must be at least 3 entries"),
    ],
)
def test_bad_lengths_are_named(length, message):
    with pytest.raises(OptionError) as error:
        build_dataset("phonebook_copy", length, "generation", version=1.0)
    assert message in str(error.value)


@pytest.mark.parametrize("command", ["lm_eval", "copy-tasks"])
@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('{"copy_tasks_docs": -5}', "copy_tasks_docs=-5 is not allowed"),
        ("copy_tasks_seed=x1", "copy_tasks_seed='x1' is not allowed"),
        ('{"copy_tasks_limit": 5}', "unknown option copy_tasks_limit=5"),
    ],
)
def test_cli_rejects_bad_metadata_before_loading_a_model(tmp_path, command, metadata, message):
    prefix = ["copy-tasks", "run"] if command == "copy-tasks" else ["lm_eval"]
    # The model does not exist: the error must come before lm-eval tries to load it.
    result = run_command(
        [*prefix, "--model", "hf", "--model_args", f"pretrained={tmp_path / 'no-model'}",
         "--tasks", "phonebook_copy_20", "--metadata", metadata],
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
