"""`copy-tasks suite`: runs lm-eval per model, then writes the leaderboard (reference models here;
the README's main job adds Gemma 3 270M, which needs its PyPI download)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_command

from copy_tasks.experiments.suite import offline_families, plan
from copy_tasks.probes.families import parse_task_name


def variant_tasks(run, variant: str) -> list[str]:
    return [task for task in run.tasks if parse_task_name(task)[1] == variant]


def test_quick_plan_runs_every_offline_family_on_each_model():
    gemma, copier, bounded = plan("quick")
    for run in (copier, bounded):
        families = {parse_task_name(task)[0] for task in run.tasks}
        assert families == {family.name for family in offline_families()}, run.label
    assert {parse_task_name(task)[0] for task in variant_tasks(gemma, "teacher_forced")} == {
        family.name for family in offline_families()}
    assert {parse_task_name(task)[0] for task in variant_tasks(gemma, "generation")} == {
        "phonebook_copy", "lookup_suffix", "lookup_prefix"}
    # one run, the generation tasks first
    assert gemma.tasks == (*variant_tasks(gemma, "generation"), *variant_tasks(gemma, "teacher_forced"))
    assert (gemma.backend, gemma.model_args, gemma.docs) == ("hf_fast", "pretrained=gemma-3-270m", 4)
    assert max(parse_task_name(task)[2] for task in gemma.tasks) == 100
    assert (copier.backend, copier.docs) == ("ngram_copier", 20)
    assert all(not task.startswith("squad") for task in copier.tasks)
    # the natural-text families read offline Wikipedia (issue 55), every run that has them
    assert {task for task in gemma.tasks if task.startswith("c4")} == {
        "c4_copy_tf_25", "c4_copy_tf_50", "c4_copy_shuffled_tf_25", "c4_copy_shuffled_tf_50"}
    for run in (gemma, copier, bounded):
        assert run.lm_eval_run(Path("results")).metadata["copy_tasks_text_source"] == "wikipedia"


def test_a_subset_of_families_adds_them_to_a_board_built_before():
    runs = plan("published", families=("c4_copy", "c4_copy_shuffled"))
    assert [run.label for run in runs] == ["gemma-3-270m", "smollm2-135m", "ngram_copier", "bounded_state"]
    assert {parse_task_name(task)[0] for run in runs for task in run.tasks} == {"c4_copy", "c4_copy_shuffled"}
    assert [parse_task_name(task)[2] for task in variant_tasks(runs[0], "generation")][:5] == [25, 50, 100, 200, 500]


def test_published_plan_has_25_docs_per_length_in_both_variants():
    (gemma,) = plan("published", ("gemma-3-270m",))
    assert gemma.docs == 25
    assert [task for task in variant_tasks(gemma, "generation") if task.startswith("phonebook")] == [
        f"phonebook_{name}_{n}" for name in ("copy", "query_first") for n in (10, 20, 30, 50, 70, 100, 150, 200)]
    assert [task for task in variant_tasks(gemma, "teacher_forced") if task.startswith("phonebook")] == [
        f"phonebook_{name}_tf_{n}" for name in ("copy", "query_first") for n in (10, 20, 30, 50, 70, 100, 150, 200)]


def test_published_plan_runs_smollm2_also_under_its_chat_template_on_the_same_docs():
    (base,) = plan("published", ("smollm2-135m",))
    (chat,) = plan("published", ("smollm2-135m-chat",))
    assert not base.chat and chat.chat
    assert (chat.model_args, chat.docs) == (base.model_args, 25)
    assert set(chat.tasks) <= set(base.tasks)
    assert {parse_task_name(task)[0] for task in variant_tasks(chat, "teacher_forced")} == {
        "phonebook_copy", "random_copy"}
    assert chat.lm_eval_run(Path("out")).command()[-1] == "--apply_chat_template"
    assert "--apply_chat_template" not in base.lm_eval_run(Path("out")).command()


def test_unknown_models_are_refused_before_anything_runs(tmp_path):
    result = run_command(["copy-tasks", "suite", "--models", "gpt-5", "--out", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 2
    assert ("--models: unknown gpt-5; the preset quick runs gemma-3-270m, ngram_copier, bounded_state"
            in result.stderr)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_out_the_suite_cannot_write_is_one_line_before_anything_runs(tmp_path, capsys, where):
    """Finding 16: `copy-tasks suite --out FILE` (or a read-only --out) ended in a traceback."""
    from copy_tasks.experiments.suite import main as suite_main

    blocker = tmp_path / "results.txt"
    blocker.write_text("mine")
    out = blocker if where == "a file" else blocker / "board"
    with pytest.raises(SystemExit) as stop:
        suite_main(["--out", str(out), "--models", "ngram_copier"])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.startswith("copy-tasks suite: error: --out ") and error.count("\n") == 1
    assert blocker.read_text() == "mine"


def test_the_suite_puts_the_leaderboard_folder_alone_on_stdout_and_leaves_no_lock_in_it(tmp_path, capsys,
                                                                                         monkeypatch):
    """Issue 44 finding 10: every line went to stderr (`copy-tasks suite ... | tee` saw nothing) and
    the build left an empty `.leaderboard.lock` in the folder. lm-eval's run is replaced by a
    results file written where the run would write it, and plots are not drawn (matplotlib's
    import alone is a second)."""
    from leaderboard_fixtures import GOOD, write_results

    from copy_tasks.experiments import suite
    from copy_tasks.report import build

    def write_a_result(run, cwd, log=None, progress=None):
        write_results(run.output / "ngram_copier", "ngram_copier", GOOD, backend="ngram_copier")

    monkeypatch.setattr(suite, "launch", write_a_result)
    monkeypatch.setattr(build, "all_plots", lambda rows: {})
    out = tmp_path / "out"
    suite.main(["--models", "ngram_copier", "--out", str(out)])
    printed = capsys.readouterr()
    assert printed.out == f"{out.resolve()}\n"
    assert printed.err.splitlines()[-1].startswith("copy-tasks: 1 run in ")
    assert sorted(path.name for path in out.iterdir()) == ["index.html", "leaderboard.csv", "plots", "results",
                                                           "summary.md"]
    # issue 44 finding 5: the summary and the page say which preset made the runs, and their docs
    made = "Made by `copy-tasks suite --preset quick --models ngram_copier`: ngram_copier at 20 docs per length."
    assert made in (out / "summary.md").read_text()
    page = (out / "index.html").read_text()
    assert "Made by <code>copy-tasks suite --preset quick --models ngram_copier</code>" in page


def test_the_reference_models_run_at_once_and_a_pretrained_model_alone(tmp_path, monkeypatch):
    """Issue 41 (the main job under 3 minutes): the reference models' runs (15 s and 26 s, one
    core each) ran one after the other after Gemma's. Each faked run waits, up to 10 s, for a
    second run to be under way at the same time."""
    import threading

    from leaderboard_fixtures import GOOD, write_results

    from copy_tasks.experiments import suite
    from copy_tasks.report import build

    meeting, met = threading.Barrier(2, timeout=10), []

    def meet_another_run(run, cwd, log=None, progress=None):
        try:
            meeting.wait()
            met.append(run.backend)
        except threading.BrokenBarrierError:
            meeting.reset()
        write_results(run.output / run.backend, run.backend, GOOD, backend=run.backend)

    monkeypatch.setattr(suite, "launch", meet_another_run)
    monkeypatch.setattr(build, "all_plots", lambda rows: {})
    suite.main(["--models", "ngram_copier,bounded_state", "--out", str(tmp_path / "out")])
    assert sorted(met) == ["bounded_state", "ngram_copier"]
    assert suite.concurrent_steps(plan("quick")) == [[1], [2, 3]]  # Gemma's run alone
