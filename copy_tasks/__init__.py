"""copy-tasks: recall probes for lm-evaluation-harness (Jelassi et al., ICML 2024).

Layers, each importing only those below it: `probes` (data and scoring; neither lm-eval nor
torch), `harness` (everything that touches lm-eval), `models` (reference, scripted and fast HF
models), and on top `report` (the leaderboard builder), `suite` and `cli`.

Importing this package is cheap: the start-up hook imports it in every Python process of an
environment where copy-tasks is installed, so `task_config_dir` and `task_manager` load
`copy_tasks.harness.registration` only when used.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "task_config_dir", "task_manager"]


def __getattr__(name: str):
    if name in ("task_config_dir", "task_manager"):
        from copy_tasks.harness import registration

        return getattr(registration, name)
    raise AttributeError(f"module 'copy_tasks' has no attribute {name!r}")
