"""The package's layers import only downward, and the probes layer stays free of lm-eval and torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import copy_tasks

PACKAGE = Path(copy_tasks.__file__).parent
LAYERS = {"common": 0, "probes": 1, "harness": 2, "models": 3, "report": 4, "experiments": 5}
TOP = 6  # anything else at the top level is an entry point


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
    assert entries == {"__init__.py", "__main__.py", "_autoregister.py", "cli.py", "export", "inspect_tasks.py",
                       "common", "probes", "harness", "models", "report", "experiments"}


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


@pytest.mark.parametrize("layer_name", ["common", "probes"])
def test_importing_the_probes_layer_loads_neither_torch_nor_lm_eval(layer_name):
    modules = sorted(module_name(path) for path in (PACKAGE / layer_name).rglob("*.py"))
    probe = (f"import importlib, sys\nfor name in {modules!r}:\n    importlib.import_module(name)\n"
             "print(sorted(name for name in ('torch', 'lm_eval', 'transformers', 'datasets') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    assert len(modules) > (15 if layer_name == "probes" else 1)  # every family module and shared probe was imported


def import_graph() -> dict[str, set[str]]:
    """copy_tasks module -> the copy_tasks modules it imports (module level and inside
    functions), the package root left out: it holds the version and two lazy names."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        if importer != "copy_tasks":
            graph[importer] = {name for name in imports_of(path) if name != "copy_tasks" and name != importer}
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of the graph as its path, or []."""
    done, on_path = set(), []

    def visit(node: str) -> list[str]:
        if node in on_path:
            return on_path[on_path.index(node):] + [node]
        if node in done:
            return []
        on_path.append(node)
        for child in sorted(graph.get(node, ())):
            if found := visit(child):
                return found
        on_path.pop()
        done.add(node)
        return []

    for node in sorted(graph):
        if found := visit(node):
            return found
    return []


def test_no_module_imports_itself_back_through_others():
    assert cycle_in(import_graph()) == []
    assert cycle_in({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]  # the check finds a circle


# and the model types `copy-tasks train` builds that transformers lacks (their training is in experiments)
BACKENDS_AND_REFERENCE_MODELS = {"__init__", "answers", "banded_attention", "bounded_number", "bounded_pairs",
                                 "bounded_state", "fast_hf",
                                 "ngram_copier", "reference_lm", "scripted_lm", "hard_alibi", "lstm_lm",
                                 "trained_architectures"}


def test_models_holds_lm_eval_backends_reference_models_and_model_types_only():
    modules = {path.stem for path in (PACKAGE / "models").glob("*.py")}
    assert modules == BACKENDS_AND_REFERENCE_MODELS
    for path in (PACKAGE / "models").glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {name for name in imported if name.split(".")[0] in ("matplotlib", "subprocess")
                    or name.startswith(("torch.optim", "copy_tasks.experiments"))}, path.name
        assert "optimizer" not in path.read_text().lower(), path.name  # no training loop


def code_strings(path: Path) -> list[str]:
    """The string constants of a module's code, its docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def modules_whose_code_says(*needles: str) -> set[str]:
    return {module_name(path) for path in PACKAGE.rglob("*.py")
            if any(needle in text for text in code_strings(path) for needle in needles)}


def runs_a_module(path: Path, modules: tuple[str, ...]) -> bool:
    """Whether a file builds a command line `... -m <one of modules> ...`."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
            if any(first == "-m" and second in modules for first, second in zip(items, items[1:])):
                return True
    return False


def test_one_function_launches_lm_eval():
    # in a subprocess: `python -m copy_tasks run ...` or `python -m lm_eval ...`, in one module
    launchers = {module_name(path) for path in PACKAGE.rglob("*.py") if runs_a_module(path, ("copy_tasks", "lm_eval"))}
    assert launchers == {"copy_tasks.experiments.lm_eval_runner"}
    assert runs_a_module(PACKAGE / "experiments" / "real_models.py", ("pip",))  # the check sees a command line
    runner = (PACKAGE / "experiments" / "lm_eval_runner.py").read_text()
    assert runner.count("subprocess.Popen(") == 1 and "def launch(" in runner
    # in this process: lm-eval's own command line, only as `copy-tasks run`
    callers = {module_name(path) for path in PACKAGE.rglob("*.py")
               if any(isinstance(node, ast.Name) and node.id in ("cli_evaluate", "simple_evaluate")
                      for node in ast.walk(ast.parse(path.read_text())))}
    assert callers == {"copy_tasks.cli"}


def test_one_module_reads_results_files():
    assert modules_whose_code_says("results_", "samples_") == {"copy_tasks.report.results"}


TESTS = Path(__file__).resolve().parent


def has_code(path: Path) -> bool:
    """Whether a module defines a function or class (not only a docstring, imports, constants)."""
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for node in ast.parse(path.read_text()).body)


def test_file_of(module: Path) -> Path:
    """Where a module's tests are: its path under tests/, the file named `test_<module>.py`
    (a package's `__init__.py`: `test_<package>.py`; a leading underscore dropped).

    >>> test_file_of(PACKAGE / "report" / "table.py").relative_to(TESTS).as_posix()
    'report/test_table.py'
    >>> test_file_of(PACKAGE / "export" / "__init__.py").relative_to(TESTS).as_posix()
    'export/test_export.py'
    """
    parts = module.relative_to(PACKAGE).parts
    folder, name = parts[:-1], module.stem
    if name == "__init__":
        name = folder[-1] if folder else "copy_tasks"
    return TESTS.joinpath(*folder, f"test_{name.lstrip('_')}.py")


test_file_of.__test__ = False  # a helper, not a test


def test_every_module_has_its_tests_where_its_path_says():
    missing = [str(test_file_of(path).relative_to(TESTS)) for path in sorted(PACKAGE.rglob("*.py"))
               if has_code(path) and not test_file_of(path).is_file()]
    assert missing == []


def test_test_files_are_named_once_and_end_to_end_ones_are_all_slow():
    names = [path.name for path in TESTS.rglob("test_*.py")]
    assert sorted({name for name in names if names.count(name) > 1}) == []  # pytest needs unique basenames
    end_to_end = sorted((TESTS / "end_to_end").glob("test_*.py"))
    assert end_to_end and [path.name for path in end_to_end
                           if "\npytestmark = pytest.mark.slow" not in path.read_text()] == []


ADAPTER = PACKAGE / "harness" / "lm_eval_internals.py"
# Underscore names of other libraries than lm-eval that a module may use, and why.
OTHER_LIBRARIES_PRIVATE_NAMES = {
    "_attn_implementation": "transformers' config attribute that selects the attention kernel",
    "_can_set_attn_implementation": "transformers' check that a model may switch its attention kernel",
}


def names_defined_in_the_package() -> set[str]:
    """Every function, class, variable and attribute name copy-tasks itself defines or assigns."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def private_names_used(path: Path) -> list[str]:
    """The underscore names (not dunders) a module reads as an attribute (`x._name`,
    `getattr(x, "_name")`), imports from lm-eval (`lm_eval.tasks._index`, `from lm_eval.x import
    _y`) or names in a string (`"lm_eval.tasks._index"`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(node.attr)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and str(node.args[1].value).startswith("_") and not str(node.args[1].value).startswith("__")):
            found.append(node.args[1].value)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lm_eval":
            found += [part for part in node.module.split(".") + [alias.name for alias in node.names]
                      if part.startswith("_") and part not in ("__main__", "__version__")]
        elif isinstance(node, ast.Import):
            found += [part for alias in node.names if alias.name.split(".")[0] == "lm_eval"
                      for part in alias.name.split(".") if part.startswith("_")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("lm_eval."):
            found += [part for part in node.value.split(".") if part.startswith("_")]
    return found


def test_no_module_but_the_adapter_touches_a_private_name_of_lm_eval():
    ours = names_defined_in_the_package()
    touched = sorted(f"{module_name(path)}: {name}" for path in PACKAGE.rglob("*.py") if path != ADAPTER
                     for name in private_names_used(path)
                     if name not in ours and name not in OTHER_LIBRARIES_PRIVATE_NAMES)
    assert touched == []


def test_the_private_name_check_sees_attributes_imports_and_strings(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import lm_eval.tasks._index\nfrom lm_eval.api.task import _private\n"
                      "TARGET = 'lm_eval.tasks._index'\nrequests = task._instances\nconfig = getattr(lm, '_config')\n")
    assert sorted(private_names_used(sample)) == ["_config", "_index", "_index", "_instances", "_private"]
    assert "_instances" not in names_defined_in_the_package()  # lm-eval's own, not a name copy-tasks defines
