"""Build hook: an editable install gets the start-up hook (`copy_tasks.pth`) but no copy of
`task_configs/`, which the package then reads beside the checkout. Copying it into
site-packages (hatch's default for `force-include`) would leave a stale copy, and after
`pip uninstall` an empty `copy_tasks/` folder that imports as a namespace package."""

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CopyTasksBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":
            build_data["force_include_editable"] = {"packaging/copy_tasks.pth": "copy_tasks.pth"}
