"""Run code right after a module is imported, wherever the import comes from: the piece the
import watchers of `harness.startup` (patch lm-eval when it loads) and
`harness.lm_eval_internals` (seed torch when it loads) share.

    >>> import sys
    >>> class Announce:
    ...     def find_spec(self, fullname, path=None, target=None):
    ...         if fullname != "json.tool":
    ...             return None
    ...         return spec_running_after(fullname, path, lambda module: print("loaded", module.__name__))
    >>> sys.modules.pop("json.tool", None) and None
    >>> sys.meta_path.insert(0, Announce())
    >>> import json.tool
    loaded json.tool
    >>> del sys.meta_path[0]
"""

from __future__ import annotations


def spec_running_after(fullname: str, path, after):
    """The spec the path finders give `fullname`, its loader made to call `after(module)` right
    after the module's code has run; None (or a spec without a loader) as they give it."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec(fullname, path)
    if spec is None or spec.loader is None:
        return spec
    load = spec.loader.exec_module

    def exec_module(module):
        load(module)
        after(module)

    spec.loader.exec_module = exec_module
    return spec
