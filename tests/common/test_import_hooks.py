"""`spec_running_after`: the module's code runs first, then the hook, once per import."""

from __future__ import annotations

import sys

from copy_tasks.common.import_hooks import spec_running_after


class Watch:
    def __init__(self, name: str, seen: list):
        self.name, self.seen = name, seen

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return spec_running_after(fullname, path, lambda module: self.seen.append(module.VALUE))


def test_the_hook_runs_right_after_the_modules_code_and_a_module_not_found_is_not_found(tmp_path, monkeypatch):
    (tmp_path / "watched_module_43.py").write_text("VALUE = 'ran'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    seen = []
    sys.meta_path.insert(0, Watch("watched_module_43", seen))
    monkeypatch.delitem(sys.modules, "watched_module_43", raising=False)
    import watched_module_43  # noqa: F401

    assert seen == ["ran"]  # the hook saw what the module's code had set
    assert spec_running_after("no_such_module_43", None, seen.append) is None and seen == ["ran"]
