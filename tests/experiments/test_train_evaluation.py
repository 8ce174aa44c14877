"""The evaluation plan of `copy-tasks train` (`copy_tasks.experiments.train_evaluation`): the
lm-eval runs it makes from a training run's jobs (labels, checkpoints, tasks, model folders); the
task YAMLs it writes for the lengths that do not ship; what `score_all` hands to each run (with
`launch` replaced: no lm-eval runs here); and its progress line."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.experiments import train_evaluation
from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.train_evaluation import (
    Evaluation,
    evaluations,
    model_label,
    progress,
    score_all,
    teacher_forced,
    write_tasks,
)
from copy_tasks.experiments.training_jobs import Job
from copy_tasks.harness.registration import task_config_dir

QUICK = RECIPES["quick"]  # copies of 5 to 10 letters for 6 steps, a checkpoint at 3; lookups of 8 to 12
QUICK_LOOKUPS = (8, 12, 20, 30, 40)
QUICK_COPIES = ("random_copy_tf_5", "random_copy_tf_10", "random_copy_tf_15", "random_copy_tf_20",
                "random_copy_tf_25", "random_copy_tf_38", "random_copy_tf_50", "random_copy_tf_75",
                "random_copy_tf_100", *(f"dup_ngram_copy_tf_{n}" for n in range(1, 9)))


def test_teacher_forced_task_names():
    assert teacher_forced("random_copy", (5, 38)) == ("random_copy_tf_5", "random_copy_tf_38")
    assert teacher_forced("lookup_prefix", (8,)) == ("lookup_prefix_tf_8",)


def test_a_models_label_names_its_task_architecture_seed_and_checkpoint():
    assert model_label(Job("transformer-rope", "lookup_suffix", 2)) == "trained-lookup_suffix-transformer-rope-s2"
    assert model_label(Job("lstm", "copy", 0), 0) == "trained-copy-lstm-s0-step0"  # step 0 is a step


def test_the_plan_of_a_quick_run_hand_worked(tmp_path):
    seed_folder = {task: tmp_path / task / "lstm" / "seed-0" for task in ("copy", "lookup_prefix", "lookup_suffix")}
    assert evaluations(QUICK, tmp_path, ("lstm",)) == [
        Evaluation("trained-copy-lstm-s0", "hf", "", QUICK_COPIES, seed_folder["copy"] / "final"),
        Evaluation("trained-copy-lstm-s0-step3", "hf", "", ("random_copy_tf_5", "random_copy_tf_10"),
                   seed_folder["copy"] / "step-3"),
        Evaluation("trained-lookup_prefix-lstm-s0", "hf", "", teacher_forced("lookup_prefix", QUICK_LOOKUPS),
                   seed_folder["lookup_prefix"] / "final"),
        Evaluation("trained-lookup_suffix-lstm-s0", "hf", "", teacher_forced("lookup_suffix", QUICK_LOOKUPS),
                   seed_folder["lookup_suffix"] / "final"),
        Evaluation("ngram_copier-5", "ngram_copier", "n=5", QUICK_COPIES),
    ]


def test_only_checkpoints_before_the_end_of_copy_training_are_scored(tmp_path):
    recipe = replace(QUICK, checkpoint_steps=(2, 3, 6, 9))  # copy training ends at step 6: its final model
    labels = [run.label for run in evaluations(recipe, tmp_path, ("lstm",))]
    checkpoints = [label for label in labels if "-step" in label]
    assert checkpoints == ["trained-copy-lstm-s0-step2", "trained-copy-lstm-s0-step3"]


def test_the_full_plan_has_a_run_per_model_and_checkpoint_each_with_its_own_label(tmp_path):
    runs = evaluations(RECIPES["full"], tmp_path, RECIPES["full"].architectures)
    # 6 architectures x 2 seeds: a copy model and its 4 checkpoints, two lookup models; and the n-gram copier
    assert len(runs) == 6 * 2 * (1 + 4 + 2) + 1 == 85
    assert len({run.label for run in runs}) == 85
    assert len({run.model for run in runs if run.model is not None}) == 84
    assert [run.label for run in runs if run.model is None] == ["ngram_copier-5"]


def test_the_tasks_written_are_the_plans_lengths_that_do_not_ship(tmp_path):
    write_tasks(QUICK, tmp_path)
    # random_copy ships 10, 20, 50, 100 of the plan's 5 to 100; the lookups ship 20 of 8 to 40
    expected = {f"{family}{variant}_{n}.yaml" for variant in ("", "_tf")
                for family, lengths in (("random_copy", (5, 15, 25, 38, 75)), ("lookup_prefix", (8, 12, 30, 40)),
                                        ("lookup_suffix", (8, 12, 30, 40)))
                for n in lengths}
    assert {path.name for path in tmp_path.iterdir()} == expected
    text = (tmp_path / "random_copy_tf_38.yaml").read_text()
    assert f"include: {task_config_dir() / 'random_copy' / '_random_copy_teacher_forced_yaml'}\n" in text
    assert ("dataset_kwargs:\n  copy_tasks_family: random_copy\n  copy_tasks_length: 38\n"
            "  copy_tasks_variant: teacher_forced\n") in text


@pytest.mark.parametrize("recipe_name", RECIPES)
def test_every_task_the_plan_scores_ships_or_is_written(tmp_path, recipe_name):
    recipe = RECIPES[recipe_name]
    write_tasks(recipe, tmp_path / "tasks")
    available = {path.stem for folder in (task_config_dir(), tmp_path / "tasks") for path in folder.rglob("*.yaml")}
    plan = evaluations(recipe, tmp_path, recipe.architectures, recipe.tasks())
    missing = {task for run in plan for task in run.tasks} - available
    assert not missing, sorted(missing)


def test_score_all_runs_each_evaluation_on_its_model_and_reads_its_exact_match(tmp_path, monkeypatch):
    launched = {}

    def fake_launch(run, cwd, log=None):
        launched[run.output.name] = (run, cwd, log)
        write_results(run.output, run.model_args, {task: {"exact_match": 0.25} for task in run.tasks})

    monkeypatch.setattr(train_evaluation, "launch", fake_launch)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    recipe = replace(QUICK, workers=2)
    runs = evaluations(recipe, tmp_path, ("lstm",))
    reports = []
    scores = score_all(recipe, tmp_path, runs, report=reports.append)

    assert list(scores) == [run.label for run in runs]
    assert scores["trained-copy-lstm-s0-step3"] == {"random_copy_tf_5": 0.25, "random_copy_tf_10": 0.25}
    assert sorted(reports) == sorted(f"scored {run.label} on {len(run.tasks)} tasks" for run in runs)
    assert os.environ["OMP_NUM_THREADS"] == "1"  # two runs at once: one torch thread each
    metadata = {"copy_tasks_docs": 4, "copy_tasks_lookup_format": "paper", "copy_tasks_copy_format": "paper",
                "copy_tasks_mqar_format": "zoology"}
    assert sorted(launched) == sorted(run.label for run in runs)
    for label, (run, _, log) in launched.items():
        assert run.output == tmp_path / "results" / label and log == tmp_path / "logs" / f"{label}.log"
        assert (run.include, run.metadata, run.batch_size) == (tmp_path / "tasks", metadata, 16)
    assert (tmp_path / "tasks" / "random_copy_tf_38.yaml").is_file()

    checkpoint, checkpoint_cwd, _ = launched["trained-copy-lstm-s0-step3"]
    assert (checkpoint.backend, checkpoint.model_args, checkpoint.device, checkpoint_cwd) == (
        "hf", "pretrained=trained-copy-lstm-s0-step3", "cpu", tmp_path / "by_name")
    link = tmp_path / "by_name" / "trained-copy-lstm-s0-step3"
    assert link.resolve() == tmp_path / "copy" / "lstm" / "seed-0" / "step-3"
    copier, copier_cwd, _ = launched["ngram_copier-5"]
    assert (copier.backend, copier.model_args, copier.device, copier_cwd) == ("ngram_copier", "n=5", None, tmp_path)
    assert not (tmp_path / "by_name" / "ngram_copier-5").exists()  # no folder: loaded by its backend


def test_progress_is_one_line_on_stderr(capsys):
    progress("trained 3 models in 12 s")
    assert capsys.readouterr() == ("", "copy-tasks train: trained 3 models in 12 s\n")
