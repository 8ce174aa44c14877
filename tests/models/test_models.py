"""The registration of our lm-eval backends (`copy_tasks.models`, its `__init__`): `register_backends`
enters each name of `BACKENDS` into lm-eval's model registry as a placeholder, importing nothing,
leaves lm-eval's own backends and anything already registered in place, is idempotent, and each
placeholder names the class whose own `register_model` later replaces it (lm-eval accepts that
replacement only from a placeholder spelled `module:ClassName`)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
from lm_eval.api.registry import get_model, model_registry

from copy_tasks.harness.model_info import REFERENCE_MODELS
from copy_tasks.models import BACKENDS, register_backends
from copy_tasks.models.reference_lm import ReferenceLM


@pytest.fixture
def registry_without_our_backends(monkeypatch):
    """lm-eval's model registry as it is before `register_backends` (lm-eval's own entries
    only); restored afterwards."""
    entries = {name: target for name, target in model_registry.items() if name not in BACKENDS}
    monkeypatch.setattr(model_registry, "_objs", entries)
    return entries


def registered(name: str):
    """What lm-eval's model registry holds under `name`, as it holds it (a placeholder stays a string)."""
    return dict(model_registry.items())[name]


def test_registration_enters_placeholders_and_imports_nothing(registry_without_our_backends):
    imported_before = "copy_tasks.models.fast_hf" in sys.modules  # another test of this process may have
    register_backends()
    for name, target in BACKENDS.items():
        assert registered(name) == target, name  # the string itself: not yet materialised
    assert ("copy_tasks.models.fast_hf" in sys.modules) == imported_before  # torch and transformers: seconds


def test_registration_is_idempotent(registry_without_our_backends):
    register_backends()
    register_backends()
    assert {name: registered(name) for name in BACKENDS} == BACKENDS


def test_registration_keeps_lm_evals_own_backends(registry_without_our_backends):
    own = dict(registry_without_our_backends)
    register_backends()
    assert "hf" in own and all(registered(name) == target for name, target in own.items())


def test_registration_after_a_module_registered_its_class_keeps_the_class(registry_without_our_backends):
    """lm-eval refuses a placeholder over a class already there: registration must skip it."""
    from copy_tasks.models.reference_lm import NgramCopierLM

    model_registry.register("ngram_copier", target=NgramCopierLM)
    register_backends()
    assert registered("ngram_copier") is NgramCopierLM
    assert registered("bounded_state") == BACKENDS["bounded_state"]


def registered_classes(module: str) -> dict[str, str]:
    """{registry name: class name} of the `@register_model(name)` classes in a module's source,
    read without importing it (`fast_hf` imports torch and transformers: seconds)."""
    tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text())
    return {decorator.args[0].value: node.name for node in tree.body if isinstance(node, ast.ClassDef)
            for decorator in node.decorator_list
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "register_model"}


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_each_placeholder_names_the_class_its_module_registers_under_that_name(name):
    """The placeholder must read `module:ClassName` of the class the module registers, or the
    module's own `register_model` (run when lm-eval imports it) would be refused as a different
    target."""
    module, _, class_name = BACKENDS[name].partition(":")
    assert registered_classes(module).get(name) == class_name


@pytest.mark.parametrize("name", ["ngram_copier", "bounded_state", "scripted"])
def test_lm_eval_loads_each_analytic_backend_from_its_placeholder(name):
    register_backends()
    loaded = get_model(name)
    module, _, class_name = BACKENDS[name].partition(":")
    assert (loaded.__module__, loaded.__name__) == (module, class_name)


def test_the_reference_models_are_analytic_backends():
    assert set(REFERENCE_MODELS) <= set(BACKENDS)
    register_backends()
    for name in REFERENCE_MODELS:
        assert issubclass(get_model(name), ReferenceLM), name
