"""The report of `copy-tasks train` (`copy_tasks.experiments.train_report`): figures read off its
tables, hand-worked."""

from __future__ import annotations

from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.train_report import EXPERIMENTS, Report
from copy_tasks.experiments.training_tasks import PAPER_TASKS, TRAINING_TASKS


def test_the_report_reads_its_figures_off_its_tables_hand_worked():
    full = RECIPES["full"]  # copies trained to 20: scored 10 ... 200; lookups 10 ... 100; seeds 0 and 1
    architectures = ("transformer-hard-alibi", "mamba2")
    scores, summaries = {}, []
    copy = {"transformer-hard-alibi": {0: 1.0, 1: 0.8}, "mamba2": {0: 0.25, 1: 0.75}}  # at every length
    lookup = {"transformer-hard-alibi": (0.5, 1.0), "mamba2": (1.0, 0.25)}  # (prefix, suffix) at every length
    for architecture in architectures:
        for seed in full.seeds:
            name = f"{architecture}-s{seed}"
            scores[f"trained-copy-{name}"] = {f"random_copy_tf_{n}": copy[architecture][seed]
                                              for n in (10, 20, 30, 40, 50, 75, 100, 150, 200)}
            for step, value in ((100, 0.5), (200, 0.95), (300, 0.95)):
                scores[f"trained-copy-{name}-step{step}"] = {"random_copy_tf_10": value, "random_copy_tf_20": value}
            for place, value in zip(("prefix", "suffix"), lookup[architecture]):
                scores[f"trained-lookup_{place}-{name}"] = {f"lookup_{place}_tf_{n}": value
                                                            for n in (10, 20, 30, 50, 75, 100)}
            for task in PAPER_TASKS:
                summaries.append({"task": task, "architecture": architecture, "seed": seed, "parameters": 1,
                                  "state_bits": None, "final_loss": 0.5, "examples": 10, "seconds": 1.0,
                                  "checkpoints": {"100": 3_200, "200": 6_400, "300": 9_600, "450": 20_000}})
    report = Report(full, "full", scores, summaries, architectures)
    markdown = report.markdown()
    assert "| transformer-hard-alibi | 0.90 (0.80-1.00) | >= 0.9: reached |" in markdown
    assert "| mamba2 | 0.50 (0.25-0.75) | < 0.5: not reached |" in markdown
    assert "| transformer-hard-alibi | transformer (Hard-ALiBi) | -0.50 | -0.50 | -0.50 | yes |" in markdown
    assert "| mamba2 | ssm | +0.75 | +0.75 | +0.75 | yes |" in markdown
    # Hard-ALiBi seed 1 scores 0.8 at the end: 0.95 at 6,400 examples is its first at or above 0.9
    assert report.figures["transformer-hard-alibi"]["examples_to_90"] == [6_400, 6_400]
    assert report.figures["mamba2"]["prefix_minus_suffix"] == [0.75, 0.75]
    assert set(report.plots()) == {"training_length_generalization.png", "training_duplicated_ngrams.png",
                                   "training_prefix_suffix.png", "training_examples_needed.png"}


def test_a_run_of_mqar_alone_reports_query_accuracy_by_pairs_hand_worked():
    full = RECIPES["full"]  # trained on 8 to 32 pairs: scored at 8, 16, 32, 64, 128
    scores = {f"trained-mqar-lstm-s{seed}": {
        **{f"mqar_tf_{pairs}:query_accuracy": value for pairs, value in zip((8, 16, 32, 64, 128),
                                                                            (1.0, 0.5, 0.25, 0.125, 0.0))},
        "mqar_tf_8": 1.0 - seed, "mqar_tf_128": 0.0} for seed in full.seeds}
    summaries = [{"task": "mqar", "architecture": "lstm", "seed": seed, "parameters": 1, "state_bits": 98_304,
                  "final_loss": 0.5, "examples": 10, "seconds": 1.0, "checkpoints": {"200": 10}}
                 for seed in full.seeds]
    report = Report(full, "full", scores, summaries, ("lstm",), ("mqar",))
    markdown = report.markdown()
    assert markdown.startswith("## Trained from scratch: multi-query associative recall")
    assert "| lstm | rnn | 0 | 1.00 | 0.50 | 0.25 | 0.12 | 0.00 | 1.00 | 0.00 |" in markdown
    assert "| lstm | rnn | 1 | 1.00 | 0.50 | 0.25 | 0.12 | 0.00 | 0.00 | 0.00 |" in markdown
    assert "| lstm | rnn | mqar | 0 | 1 | 98,304 |" in markdown
    assert "Length generalisation" not in markdown  # the paper's experiments need the paper's tasks
    assert list(report.plots()) == ["training_mqar.png"]


def test_every_declared_experiment_is_read_by_the_report():
    assert {task.experiment for task in TRAINING_TASKS.values()} == set(EXPERIMENTS) == {"paper", "mqar"}
