"""The package's layers import only downward, and the probes layer stays free of lm-eval and torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import copy_tasks

PACKAGE = Path(copy_tasks.__file__).parent
LAYERS = {"probes": 0, "harness": 1, "models": 2}  # anything else at the top level is an entry point: 3
TOP = 3


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int | None:
    """The layer of a copy_tasks module; None for the package root (its version, lazy names)."""
    parts = module.split(".")
    if parts == ["copy_tasks"]:
        return None
    return LAYERS.get(parts[1], TOP)


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def imports_of(path: Path) -> set[str]:
    """Every copy_tasks module a file imports, at module level or inside functions
    (`from copy_tasks.x import y` counts as importing `copy_tasks.x.y` when y is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("copy_tasks")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("copy_tasks"):
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if is_module(submodule) else node.module)
    return found


def test_the_top_level_holds_only_entry_points_and_the_layers():
    entries = {path.name for path in PACKAGE.iterdir() if not path.name.startswith((".", "__pycache__"))}
    entries.discard("task_configs")  # the YAMLs, in an installed wheel (beside the package in a checkout)
    assert entries == {"__init__.py", "__main__.py", "_autoregister.py", "cli.py", "suite.py", "train.py",
                       "probes", "harness", "models", "report"}


def test_no_module_imports_from_a_layer_above_its_own():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for imported in imports_of(path):
            if layer(imported) is not None and layer(imported) > (layer(importer) or TOP):
                upward.append(f"{importer} imports {imported}")
    assert upward == []


def test_the_walk_sees_imports_inside_functions():
    assert "copy_tasks.harness.registration" in imports_of(PACKAGE / "__init__.py")


@pytest.mark.parametrize("layer_name", ["probes"])
def test_importing_the_probes_layer_loads_neither_torch_nor_lm_eval(layer_name):
    modules = sorted(module_name(path) for path in (PACKAGE / layer_name).rglob("*.py"))
    probe = (f"import importlib, sys\nfor name in {modules!r}:\n    importlib.import_module(name)\n"
             "print(sorted(name for name in ('torch', 'lm_eval', 'transformers', 'datasets') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    assert len(modules) > 15  # every family module and shared probe was imported
