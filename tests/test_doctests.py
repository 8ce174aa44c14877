"""The worked examples in the docstrings are true."""

import doctest
import importlib

import pytest

MODULES = [
    "copy_tasks.answers",
    "copy_tasks.bounded_state",
    "copy_tasks.cli",
    "copy_tasks.docs",
    "copy_tasks.families",
    "copy_tasks.lookup",
    "copy_tasks.names",
    "copy_tasks.ngram_copier",
    "copy_tasks.options",
    "copy_tasks.phonebook",
    "copy_tasks.registration",
    "copy_tasks.seeding",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
