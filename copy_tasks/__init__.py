"""copy-tasks: recall probes for lm-evaluation-harness (Jelassi et al., ICML 2024).

Layers, each importing only those below it: `common` (what all share: files, the version),
`probes` (data and scoring; neither lm-eval nor torch), `harness` (everything that touches
lm-eval), `models` (lm-eval backends and the reference models), `report` (reading results; the
leaderboard), `experiments` (the suite, training, model preparation), and on top the entry
points: `cli` (the `copy-tasks` command), `export` (`copy-tasks export`: the docs as a `datasets`
folder) and `inspect_tasks` (the tasks for inspect-ai).

`score(doc, answer)` and `score_teacher_forced(doc, logprob, is_greedy)` are the public scorer
(`copy_tasks.probes.public_scorer`): our tasks' verdicts for a doc of an exported dataset
(`copy-tasks export`), without lm-eval or torch; `questions(doc)` gives the prompts of a doc
that asks several questions (`mqar`).

Importing this package is cheap: the start-up hook imports it in every Python process of an
environment where copy-tasks is installed, so `task_config_dir`, `task_manager`, the scorer and
`__version__` (written once, in `copy_tasks.common.version`) load their modules only when used.
`register_architectures()` enters the model types of `copy-tasks train` (Hard-ALiBi, the LSTM)
into transformers' Auto classes, as the start-up hook does when lm-eval's `hf` backend is
imported.
"""

__all__ = ["__version__", "questions", "register_architectures", "score", "score_teacher_forced", "task_config_dir",
           "task_manager"]


def __getattr__(name: str):
    if name == "__version__":
        from copy_tasks.common.version import __version__

        return __version__
    if name == "task_config_dir":
        from copy_tasks.harness.registration import task_config_dir

        return task_config_dir
    if name == "task_manager":
        from copy_tasks.harness.startup import task_manager

        return task_manager
    if name == "register_architectures":
        from copy_tasks.models.trained_architectures import register

        return register
    if name in ("questions", "score", "score_teacher_forced"):
        from copy_tasks.probes import public_scorer

        return getattr(public_scorer, name)
    raise AttributeError(f"module 'copy_tasks' has no attribute {name!r}")
