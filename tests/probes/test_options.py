"""Bad input fails early with a message naming the key, the value and what is allowed."""

from __future__ import annotations

import pytest

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


def test_docs_given_as_plus_5_is_5(tmp_path):
    from copy_tasks.probes.families import FAMILIES, task_settings

    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": 5.0}).docs == 5
    assert task_settings(FAMILIES["random_copy"], {"copy_tasks_docs": "+5"}).docs == 5
