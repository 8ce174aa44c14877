"""The package's layers import only downward, and the probes layer stays free of lm-eval and torch."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import copy_tasks
from copy_tasks.harness import lm_eval_internals

PACKAGE = Path(copy_tasks.__file__).parent
LAYERS = {"common": 0, "probes": 1, "harness": 2, "models": 3, "report": 4, "experiments": 5}
TOP = 6  # anything else at the top level is an entry point


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    """The layer of a copy_tasks module; the package root is an entry point (its names load lazily
    from the layers, its version from `copy_tasks.common.version`): no module imports it."""
    parts = module.split(".")
    return LAYERS.get(parts[1], TOP) if len(parts) > 1 else TOP


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
            if layer(imported) > layer(importer) or (imported == "copy_tasks" and importer != "copy_tasks"):
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
    functions), the package root included."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        graph[importer] = {name for name in imports_of(path) if name != importer}
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
BACKENDS_AND_REFERENCE_MODELS = {"__init__", "answers", "banded_attention", "bounded_flip_flop", "bounded_number",
                                 "bounded_pairs",
                                 "bounded_phonebook", "bounded_readers", "bounded_state", "fast_hf", "sliding_cache",
                                 "ngram_copier", "reference_lm", "scripted_lm", "scripted_hf", "hard_alibi", "lstm_lm",
                                 "conv_attention", "left_padding", "trained_architectures"}


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


def docstring_ids(tree: ast.AST) -> set[int]:
    """The ids of a module's docstring nodes (its own, its classes' and its functions')."""
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def code_strings(path: Path) -> list[str]:
    """The string constants of a module's code, its docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = docstring_ids(tree)
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
    # in this process: lm-eval's own command line (the adapter holds it), only as `copy-tasks run`
    callers = {module_name(path) for path in PACKAGE.rglob("*.py") if path != ADAPTER
               and any(isinstance(node, ast.Name) and node.id in ("cli_evaluate", "simple_evaluate")
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


# The packages whose docstring is the map of their modules.
MAPPED_PACKAGES = ("", "common", "export", "models", "report", "experiments")


def modules_not_named(package: Path) -> list[str]:
    """The modules and subpackages of a package (private ones left out) its docstring does not
    name in backticks, as `name` or a dotted path ending in it (`copy_tasks.report.table`)."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    named = {quoted.split(".")[-1] for quoted in re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)`", doc)}
    parts = {path.stem for path in package.glob("*.py")} | {path.name for path in package.iterdir()
                                                              if (path / "__init__.py").is_file()}
    return sorted(name for name in parts if not name.startswith("_") and name not in named)


@pytest.mark.parametrize("package", MAPPED_PACKAGES)
def test_a_package_docstring_names_each_of_its_modules(package):
    assert modules_not_named(PACKAGE / package) == []


def test_the_test_helpers_name_test_files_that_exist():
    named = {name for path in TESTS.glob("*.py") if not path.name.startswith("test_")
             for name in re.findall(r"`([\w/]*test_\w+\.py)`", ast.get_docstring(ast.parse(path.read_text())) or "")}
    assert named and sorted(name for name in named if not (TESTS / name).is_file()) == []


def test_test_files_are_named_once_and_end_to_end_ones_are_all_slow():
    names = [path.name for path in TESTS.rglob("test_*.py")]
    assert sorted({name for name in names if names.count(name) > 1}) == []  # pytest needs unique basenames
    end_to_end = sorted((TESTS / "end_to_end").glob("test_*.py"))
    assert end_to_end and [path.name for path in end_to_end
                           if "\npytestmark = pytest.mark.slow" not in path.read_text()] == []


ADAPTER = PACKAGE / "harness" / "lm_eval_internals.py"
BENCHMARKS = PACKAGE.parent / "benchmarks"
# The files that may reach lm-eval's internals themselves, and why.
REACH_LM_EVAL_ITSELF = {
    ADAPTER: "the adapter: every lm-eval internal copy-tasks relies on is named there",
    TESTS / "harness" / "test_lm_eval_internals.py": "the adapter's tests: they call lm-eval's internals and "
                                                     "stand in for its functions: each is as the adapter assumes",
    TESTS / "test_layers.py": "this file: its samples spell what its checks catch",
}
# The lm-eval internals other tests reach, each for a test's own set-up, and why.
TESTS_REACHING_LM_EVAL = {
    ("forked_command.py", "lm_eval.utils"): "a forked command starts with lm-eval's logging as a fresh interpreter has "
                                            "it: the fork clears the flag by which lm-eval sets it up once a process",
    ("forked_command.py", "_LOGGING_CONFIGURED"): "that flag",
    ("harness/test_backend_limits.py", "lm_eval.models.vllm_causallms"): "lm-eval's vLLM backend, imported anew over "
                                                                         "a stub vllm (vllm is not installed here)",
    ("end_to_end/test_request_cache.py", "setattr on cache"): "lm-eval's request cache folder (`lm_eval.caching.cache."
                                                              "PATH`) in the test's folder: lm-eval reads its setting, "
                                                              "LM_HARNESS_CACHE_PATH, once at import",
    ("end_to_end/test_run_settings.py", "setattr on cache"): "the same",
    ("models/test_models.py", "setattr on model_registry"): "lm-eval's model registry without our backends for a "
                                                            "test, then restored: it can add entries, not remove them",
    ("models/test_models.py", "_objs"): "the registry's entries, so replaced",
}
# Underscore names of other libraries than lm-eval that a module may use, and why.
OTHER_LIBRARIES_PRIVATE_NAMES = {
    "_attn_implementation": "transformers' config attribute that selects the attention kernel",
    "_can_set_attn_implementation": "transformers' check that a model may switch its attention kernel",
    "_exit": "os._exit: a forked test command ends without running the test process's exit handlers",
    "_showwarnmsg_impl": "warnings' printer, reset in a forked test command as a fresh interpreter has it",
    "_filters_mutated": "warnings' cache of its filters, cleared with them in a forked test command",
    "_setup_cache": "transformers' RecurrentGemma allocates the states it keeps in its layers there (cache_memory)",
}
# The functions of lm-eval's that copy-tasks overrides or wraps: their arguments are read by name
# in the adapter only (`build_all_requests_arguments`, `evaluate_model_and_tasks`, ...).
WRAPPED_LM_EVAL_FUNCTIONS = {target.attribute for target in lm_eval_internals.PATCH_TARGETS.values()} | {
    "build_all_requests", "_loglikelihood_tokens"}
RESULTS_KEY_SIGNS = (",none", "_stderr,")  # lm-eval's `<metric>,<filter>` keys: `results_key`


def checked_files() -> list[Path]:
    """The files whose lm-eval knowledge is checked: the package's, the tests' and the benchmarks'."""
    return [path for folder in (PACKAGE, TESTS, BENCHMARKS) for path in sorted(folder.rglob("*.py"))
            if path not in REACH_LM_EVAL_ITSELF]


def names_defined_in_the_package() -> set[str]:
    """Every function, class, variable, parameter and attribute name copy-tasks itself (its
    package, tests and benchmarks) defines or assigns."""
    names = set()
    for path in [*checked_files(), *REACH_LM_EVAL_ITSELF]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def called_name(call: ast.Call) -> str | None:
    """The name of what a call calls: `f` of `f(...)` and of `x.f(...)`."""
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)


def private_names_used(path: Path) -> list[str]:
    """The underscore names (not dunders) a module reads or sets as an attribute (`x._name`,
    `getattr(x, "_name")`, `monkeypatch.setattr(x, "_name", ...)`), imports from lm-eval
    (`lm_eval.tasks._index`, `from lm_eval.x import _y`, `lm_eval.__main__`) or names in a string
    (`"lm_eval.tasks._index"`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(node.attr)
        elif (isinstance(node, ast.Call) and called_name(node) in ("getattr", "hasattr", "setattr", "delattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and str(node.args[1].value).startswith("_") and not str(node.args[1].value).startswith("__")):
            found.append(node.args[1].value)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lm_eval":
            found += [part for part in node.module.split(".") + [alias.name for alias in node.names]
                      if part.startswith("_") and part != "__version__"]
        elif isinstance(node, ast.Import):
            found += [part for alias in node.names if alias.name.split(".")[0] == "lm_eval"
                      for part in alias.name.split(".") if part.startswith("_")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("lm_eval."):
            found += [part for part in node.value.split(".") if part.startswith("_")]
    return found


def lm_eval_names_bound(tree: ast.AST) -> set[str]:
    """The names a module binds to lm-eval's modules and objects (`import lm_eval.x`, `from lm_eval.x import Y`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] == "lm_eval"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lm_eval":
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def root_name(node: ast.AST) -> str | None:
    """The name an expression like `a.b[0].c` starts from (`a`), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def string_key(node: ast.AST) -> str | None:
    """The string a lookup reads (`x["key"]`, `x.get("key")`), or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def looked_up(node: ast.AST) -> ast.AST:
    """What a lookup reads from (`x` of `x["key"]` and of `x.get("key")`)."""
    return node.value if isinstance(node, ast.Subscript) else node.func.value


def keyword_arguments_read_by_overrides(cls: ast.ClassDef) -> list[str]:
    """The keyword arguments a class's overrides of lm-eval's wrapped functions read by name
    (`kwargs.get("limit")` in `build_all_requests(self, **kwargs)`)."""
    found = []
    for method in cls.body:
        if isinstance(method, ast.FunctionDef) and method.name in WRAPPED_LM_EVAL_FUNCTIONS and method.args.kwarg:
            kwargs = method.args.kwarg.arg
            found += [f"{method.name}'s argument {key!r}" for inner in ast.walk(method)
                      if (key := string_key(inner)) is not None and root_name(looked_up(inner)) == kwargs]
    return found


def lm_eval_knowledge_used(path: Path) -> list[str]:
    """What a module knows of lm-eval beyond its private names: the modules it names in a string
    (`"lm_eval.models.huggingface"`, a logger's or a patch target's name), the results keys it
    spells (`"exact_match,none"`, `f"{metric}_stderr,none"`), the attributes it sets on lm-eval's
    modules and objects (`setattr(HFLM, ...)`, `monkeypatch.setattr(evaluator, ...)`,
    `lm_eval.x.y = ...`, `setattr(owner, target.attribute, ...)` on a patch target's owner, as
    `answer_stops` once did beside the adapter's `patch`), the arguments of a wrapped lm-eval
    call it reads by name (a bound signature's `arguments`, the keyword arguments of an override
    of `build_all_requests` and the other functions we wrap), and the request tuples it indexes
    (`request[1]`)."""
    tree = ast.parse(path.read_text())
    docstrings, ours_from_lm_eval = docstring_ids(tree), lm_eval_names_bound(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if node.value.startswith("lm_eval."):
                found.append(node.value)
            if any(sign in node.value for sign in RESULTS_KEY_SIGNS):
                found.append(f"results key {node.value!r}")
        elif (isinstance(node, ast.Call) and node.args and root_name(node.args[0]) in ours_from_lm_eval
              and called_name(node) in ("setattr", "delattr", "object")):
            found.append(f"setattr on {ast.unparse(node.args[0])}")
        elif (isinstance(node, ast.Call) and called_name(node) == "setattr" and len(node.args) > 1
              and isinstance(node.args[1], ast.Attribute) and node.args[1].attr == "attribute"):
            found.append(f"setattr of a patch target's attribute on {ast.unparse(node.args[0])}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            found += [f"setattr on {ast.unparse(target)}" for target in targets
                      if isinstance(target, ast.Attribute) and root_name(target) in ours_from_lm_eval]
        if (key := string_key(node)) is not None and isinstance(looked_up(node), ast.Attribute) \
                and looked_up(node).attr == "arguments":
            found.append(f"argument {key!r} of a bound call")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bind_partial":
            found.append("a bound call's arguments")
        if isinstance(node, ast.ClassDef):
            found += keyword_arguments_read_by_overrides(node)
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in ("request", "token_request")
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
            found.append(f"request tuple {ast.unparse(node)}")
    return found


def test_no_module_but_the_adapter_touches_a_private_name_of_lm_eval():
    ours = names_defined_in_the_package()
    touched = sorted(f"{path.relative_to(PACKAGE.parent)}: {name}" for path in checked_files()
                     for name in private_names_used(path)
                     if name not in ours and name not in OTHER_LIBRARIES_PRIVATE_NAMES
                     and allowed_in_tests(path, name) is None)
    assert touched == []


def allowed_in_tests(path: Path, what: str) -> str | None:
    """Why a test file may reach this piece of lm-eval itself, or None."""
    if not path.is_relative_to(TESTS):
        return None
    return TESTS_REACHING_LM_EVAL.get((path.relative_to(TESTS).as_posix(), what))


def test_no_module_but_the_adapter_knows_lm_eval_internals():
    known = sorted(f"{path.relative_to(PACKAGE.parent)}: {what}" for path in checked_files()
                   for what in lm_eval_knowledge_used(path) if allowed_in_tests(path, what) is None)
    assert known == []


def test_the_allowances_are_each_used():
    used = {(path.relative_to(TESTS).as_posix(), what) for path in checked_files() if path.is_relative_to(TESTS)
            for what in [*private_names_used(path), *lm_eval_knowledge_used(path)]}
    assert set(TESTS_REACHING_LM_EVAL) <= used


def test_the_private_name_check_sees_attributes_imports_and_strings(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import lm_eval.tasks._index\nfrom lm_eval.api.task import _private\n"
                      "from lm_eval.__main__ import cli_evaluate\n"
                      "TARGET = 'lm_eval.tasks._index'\nrequests = task._instances\nconfig = getattr(lm, '_config')\n"
                      "monkeypatch.setattr(registry, '_objs', {})\n")
    assert sorted(private_names_used(sample)) == ["__main__", "_config", "_index", "_index", "_instances", "_objs",
                                                  "_private"]
    assert "_instances" not in names_defined_in_the_package()  # lm-eval's own, not a name copy-tasks defines


def test_the_knowledge_check_sees_module_paths_results_keys_setattr_arguments_and_request_tuples(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""A docstring may say `exact_match,none`."""\n'
        "import lm_eval.evaluator\nfrom lm_eval.models.huggingface import HFLM\n"
        "HOOKED = 'lm_eval.models.huggingface'\nscore = results['exact_match,none']\nkey = f'{metric}_stderr,none'\n"
        "setattr(HFLM, 'x', 1)\nmonkeypatch.setattr(lm_eval.evaluator, 'evaluate', f)\nHFLM.y = 2\n"
        "setattr(ours, 'z', 3)\nlm = bound.arguments.get('lm')\narguments = signature.bind_partial(*args)\n"
        "class T:\n    def build_all_requests(self, **kwargs):\n        return kwargs.get('limit'), other['limit']\n"
        "tokens = request[1] + request[2]\nfirst = requests[0]\nprompt = request.arguments[0]\n")
    assert sorted(lm_eval_knowledge_used(sample)) == sorted([
        "lm_eval.models.huggingface", "results key 'exact_match,none'", "results key '_stderr,none'",
        "setattr on HFLM", "setattr on lm_eval.evaluator", "setattr on HFLM.y", "argument 'lm' of a bound call",
        "a bound call's arguments", "build_all_requests's argument 'limit'", "request tuple request[1]",
        "request tuple request[2]"])
