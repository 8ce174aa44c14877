"""copy-tasks: recall probes for lm-evaluation-harness (Jelassi et al., ICML 2024).

Importing this package is cheap and imports neither lm-eval nor torch: it is imported by
`copy_tasks.pth` in every Python process of an environment where it is installed.
"""

from copy_tasks.registration import task_config_dir, task_manager

__version__ = "0.1.0"

__all__ = ["__version__", "task_config_dir", "task_manager"]
