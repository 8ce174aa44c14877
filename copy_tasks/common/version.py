"""copy-tasks' version, written here once: hatch reads it when it builds the wheel (pyproject's
`[tool.hatch.version]`), every layer imports it from here, and the package root shows it as
`copy_tasks.__version__`."""

__version__ = "0.1.0"
