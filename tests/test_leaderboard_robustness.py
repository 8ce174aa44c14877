"""Nothing lost, nothing crashes: the leaderboard under concurrent builds, kills and hostile
files, and the start-up hook and the model cache under bad settings."""

from __future__ import annotations

import csv
import json
import logging
import math
import multiprocessing
import os
import signal
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import run_command
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from leaderboard_fixtures import write_results

from copy_tasks.harness import registration
from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.rows import rows_from_file

GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def read_rows(out: Path) -> list[dict]:
    with (out / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def good_file(folder: Path) -> Path:
    return write_results(folder, "good-model", GOOD, date="2026-11-02T10:00:00")


# ---- hostile results files ------------------------------------------------------------------
JSON = st.recursive(st.none() | st.booleans() | st.integers(min_value=-10**400, max_value=10**400)
                    | st.floats() | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children,
                                                                                      max_size=3), max_leaves=8)
TASK = "phonebook_copy_20"
PATHS = [("config",), ("configs",), ("configs", TASK), ("configs", TASK, "metadata"), ("n-samples",),
         ("n-samples", TASK), ("results", TASK), ("results", TASK, "exact_match,none"),
         ("results", TASK, "exact_match_stderr,none"), ("versions",), ("n-shot",), ("date",), ("model_name",),
         ("task_hashes",), ("results",), ("configs", TASK, "metadata", "copy_tasks_overflow_docs")]


def mutated(data: dict, path: tuple[str, ...], value) -> dict:
    """`data` with the field at `path` set to `value` (unchanged where the path runs into a non-object)."""
    target = data
    for key in path[:-1]:
        target = target.setdefault(key, {})
        if not isinstance(target, dict):
            return data
    target[path[-1]] = value
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), value=JSON)
@example(path=("date",), value=float("nan"))  # a NaN date
@example(path=("date",), value=1e300)  # a date past the calendar
@example(path=("config",), value=[1, 2])  # config a list
@example(path=("configs", "phonebook_copy_20"), value="x")  # a task config a string
@example(path=("n-samples",), value=5)  # n-samples an int
@example(path=("results", "phonebook_copy_20"), value=None)  # a task's results null
@example(path=("results", "phonebook_copy_20", "exact_match,none"), value=10**400)  # a value of 10**400
def test_the_reader_never_raises_on_a_mutated_results_file(tmp_path_factory, path, value):
    folder = tmp_path_factory.mktemp("mutated")
    file = write_results(folder, "model", GOOD)
    file.write_text(json.dumps(mutated(json.loads(file.read_text()), path, value)))
    rows, problems = rows_from_file(file)
    for row in rows:  # what is read is sound: finite numbers, stderr >= 0, lengths > 0
        assert row.value is None or math.isfinite(row.value)
        assert row.stderr is None or (math.isfinite(row.stderr) and row.stderr >= 0)
        assert row.length > 0


@pytest.mark.parametrize("where", ["results", "samples"])
def test_json_nested_5000_deep_is_named_and_skipped(tmp_path, where):
    file = write_results(tmp_path / "in", "deep", GOOD)
    nested = "[" * 5000 + "]" * 5000
    if where == "results":
        file.write_text(nested)
    else:
        (file.parent / f"samples_phonebook_copy_20_{file.stem.removeprefix('results_')}.jsonl").write_text(nested)
    good_file(tmp_path / "in")
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert "good-model" in {row["model"] for row in read_rows(tmp_path / "out")}
    assert any("nested too deeply" in problem.message for problem in report.problems)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), value=JSON,
       name=st.sampled_from(["$x^2$", "![x](http://a.b)<script>", "a|b", "m\\nn", "=1+1", "ok"]))
def test_a_hostile_file_never_drops_a_good_file_or_poisons_later_runs(tmp_path_factory, path, value, name):
    folder, out = tmp_path_factory.mktemp("in"), tmp_path_factory.mktemp("out")
    file = write_results(folder, name, GOOD)
    file.write_text(json.dumps(mutated(json.loads(file.read_text()), path, value)))
    good_file(folder)
    for _ in range(2):  # the second build reads the first one's CSV back
        build_leaderboard([folder], out)
        models = {row["model"] for row in read_rows(out)}
        assert "good-model" in models
    summary = (out / "summary.md").read_text()
    assert "<script>" not in summary and "](http" not in summary


@pytest.mark.parametrize(("metric", "value", "message"), [
    ("exact_match_stderr", -0.1, "not a number >= 0"),
    ("exact_match", float("inf"), "is not a finite number"),
    ("exact_match", 1e308, "is not a finite number"),
])
def test_values_that_would_poison_the_output_are_left_empty_and_named(tmp_path, metric, value, message):
    scores = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.1} | {metric: value},
              "phonebook_copy_50": {"exact_match": 0.25}}
    write_results(tmp_path / "in", "pythia", scores)
    report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert any(message in problem.message for problem in report.problems)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")  # and the next run into the folder works
    assert "| pythia | transformer |" in (tmp_path / "out" / "summary.md").read_text()


def test_a_length_0_task_is_left_out(tmp_path):
    write_results(tmp_path / "in", "pythia", {"phonebook_copy_0": {"exact_match": 1.0}, **GOOD})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert {row["task"] for row in read_rows(tmp_path / "out")} == set(GOOD)


def test_model_names_are_escaped_in_the_summary_and_plots(tmp_path):
    write_results(tmp_path / "in", "$\\frac{a$", GOOD)
    write_results(tmp_path / "in", "![x](http://a.b)<script>", GOOD, date="2026-11-03T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| \\!\\[x\\]\\(http://a.b\\)&lt;script&gt; |" in summary and "| \\$\\\\frac{a\\$ |" in summary
    assert (tmp_path / "out" / "plots" / "phonebook_copy.png").stat().st_size > 1000


def test_each_plot_labels_its_axes_with_the_metric_and_its_lines_with_the_models(tmp_path, monkeypatch):
    from matplotlib.axes import Axes

    drawn = []
    set_ylabel, legend = Axes.set_ylabel, Axes.legend

    def recording_set_ylabel(axes, text, *args, **kwargs):
        drawn.append(("y", text))
        return set_ylabel(axes, text, *args, **kwargs)

    def recording_legend(axes, *args, **kwargs):
        drawn.append(("lines", sorted(axes.get_legend_handles_labels()[1])))
        return legend(axes, *args, **kwargs)

    monkeypatch.setattr(Axes, "set_ylabel", recording_set_ylabel)
    monkeypatch.setattr(Axes, "legend", recording_legend)
    write_results(tmp_path / "in", "model-a", GOOD)
    write_results(tmp_path / "in", "model-$b", GOOD, date="2026-11-03T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    assert ("y", "exact match (our rule)") in drawn  # not the last model's name (a shadowed variable once did that)
    assert ("lines", ["model-\\$b", "model-a"]) in drawn
    assert all(text in ("exact match (our rule)", "bits per character of the target (lower is better)")
               for kind, text in drawn if kind == "y")


# ---- files and folders ----------------------------------------------------------------------
def test_outputs_follow_the_umask_and_keep_an_existing_files_mode(tmp_path):
    good_file(tmp_path / "in")
    old = os.umask(0o022)
    try:
        build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert stat.S_IMODE((tmp_path / "out" / "leaderboard.csv").stat().st_mode) == 0o644
        assert stat.S_IMODE((tmp_path / "out" / "plots" / "phonebook_copy.png").stat().st_mode) == 0o644
        (tmp_path / "out" / "summary.md").chmod(0o640)
        write_results(tmp_path / "in", "other", GOOD, date="2026-11-05T10:00:00")
        build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert stat.S_IMODE((tmp_path / "out" / "summary.md").stat().st_mode) == 0o640
        assert stat.S_IMODE((tmp_path / "out" / "leaderboard.csv").stat().st_mode) == 0o644
    finally:
        os.umask(old)


@pytest.mark.parametrize("case", ["out is a file", "its parent is a file", "plots is a file"])
def test_an_out_folder_that_cannot_be_is_one_line_and_exit_2(tmp_path, case):
    good_file(tmp_path / "in")
    out = tmp_path / "out"
    if case == "out is a file":
        out.write_text("x")
    elif case == "its parent is a file":
        (tmp_path / "parent").write_text("x")
        out = tmp_path / "parent" / "out"
    else:
        out.mkdir()
        (out / "plots").write_text("x")
    result = run_command(["copy-tasks", "leaderboard", str(tmp_path / "in"), "--out", str(out)], cwd=tmp_path)
    assert result.returncode == 2
    assert "copy-tasks leaderboard: error: --out" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("damage", "message"), [
    (lambda text: text[: len(text) // 2].rsplit(",", 3)[0], "fewer fields than columns"),
    (lambda text: text.replace("\n", ",extra\n", 2).replace(",extra\n", "\n", 1), "more fields than columns"),
    (lambda text: text + "1,café," + "\n", None),
])
def test_a_damaged_csv_is_named_and_left_untouched(tmp_path, damage, message):
    good_file(tmp_path / "in")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    csv_path = tmp_path / "out" / "leaderboard.csv"
    if message is None:  # latin-1
        csv_path.write_bytes(damage(csv_path.read_text()).encode("latin-1"))
        message = "not UTF-8 text"
    else:
        csv_path.write_text(damage(csv_path.read_text()))
    before = csv_path.read_bytes()
    result = run_command(["copy-tasks", "leaderboard", str(tmp_path / "in"), "--out", str(tmp_path / "out")],
                         cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert csv_path.read_bytes() == before


# ---- concurrency and kills ------------------------------------------------------------------
def _build_after(barrier, folder: str, out: str) -> None:
    barrier.wait()
    build_leaderboard([Path(folder)], Path(out))


@pytest.mark.slow
def test_20_pairs_of_concurrent_builds_lose_no_row_and_keep_summary_and_csv_together(tmp_path):
    context = multiprocessing.get_context("fork")
    for pair in range(20):
        out = tmp_path / f"out{pair}"
        folders = [tmp_path / f"in{pair}_{side}" for side in (0, 1)]
        for side, folder in enumerate(folders):
            write_results(folder, f"model-{side}", GOOD, date=f"2026-11-0{side + 1}T10:00:00")
        barrier = context.Barrier(2)
        workers = [context.Process(target=_build_after, args=(barrier, str(folder), str(out))) for folder in folders]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
            assert worker.exitcode == 0
        rows = read_rows(out)
        assert {row["model"] for row in rows} == {"model-0", "model-1"}, pair
        assert len(rows) == 2 * 4  # each file: 4 metrics
        summary = (out / "summary.md").read_text()
        assert "| model-0 |" in summary and "| model-1 |" in summary


def kill_while_writing(command: list[str], folder: Path) -> bool:
    """Run `command`, and kill it the moment a temporary file of ours appears in `folder`
    (an atomic write under way); True if it was caught writing."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while process.poll() is None:
        if any(path.name.endswith(".tmp") for path in folder.rglob(".*")):
            process.send_signal(signal.SIGKILL)
            process.wait()
            return True
    return False


@pytest.mark.slow
def test_a_killed_build_leaves_the_old_or_the_new_csv_whole_and_the_next_run_no_temporary_files(tmp_path):
    for index in range(400):
        stamp = f"{index // 60:02d}:{index % 60:02d}"
        write_results(tmp_path / "old", f"model-{index}", GOOD, date=f"2026-11-01T10:{stamp}")
        write_results(tmp_path / "new", f"model-{index}", GOOD, date=f"2026-11-02T10:{stamp}")
    out, whole = tmp_path / "out", tmp_path / "whole"
    build_leaderboard([tmp_path / "old"], out)
    build_leaderboard([tmp_path / "old"], whole)
    build_leaderboard([tmp_path / "new"], whole)
    old, new = (out / "leaderboard.csv").read_bytes(), (whole / "leaderboard.csv").read_bytes()
    command = [sys.executable, "-m", "copy_tasks", "leaderboard", str(tmp_path / "new"), "--out", str(out)]
    caught = 0
    for _ in range(8):
        caught += kill_while_writing(command, out)
        assert (out / "leaderboard.csv").read_bytes() in (old, new)
        if caught:
            break
    assert caught, "no kill landed during a write"
    build_leaderboard([tmp_path / "new"], out)
    assert (out / "leaderboard.csv").read_bytes() == new
    assert not [path for path in out.rglob("*") if path.name.endswith(".tmp")]


# ---- the start-up hook and the model cache --------------------------------------------------
def test_a_patch_that_fails_leaves_lm_eval_untouched_and_says_why(caplog):
    renamed = types.ModuleType("lm_eval.tasks._index")
    renamed.__file__ = "/nowhere/_index.py"
    renamed.RenamedTaskIndex = object  # no TaskIndex
    with caplog.at_level(logging.WARNING, logger="copy_tasks"):
        registration.patch(renamed)
    assert "could not hook into lm_eval.tasks._index (AttributeError" in caplog.text
    assert "left as lm-eval made it" in caplog.text and not hasattr(renamed, "TaskIndex")


def test_a_left_over_pth_without_the_package_is_silent(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "copy_tasks.pth").write_text((PACKAGE_ROOT / "packaging" / "copy_tasks.pth").read_text())
    result = subprocess.run([sys.executable, "-S", "-c", f"import site; site.addsitedir({str(site)!r})"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.parametrize("case", ["a file", "unwritable"])
def test_a_model_cache_that_cannot_hold_models_is_one_line(tmp_path, case):
    cache = tmp_path / "cache"
    if case == "a file":
        cache.write_text("x")
    else:
        cache.mkdir()
        cache.chmod(0o500)
        if os.access(cache, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
    result = run_command(["copy-tasks", "model", "gemma-3-270m"], cwd=tmp_path, COPY_TASKS_CACHE=str(cache))
    assert result.returncode == 1
    assert "cannot keep models in" in result.stderr and "COPY_TASKS_CACHE" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("key", ["", ",none", " ,none"])
def test_a_metric_with_no_name_is_left_out_and_the_next_build_reads_the_csv(tmp_path, key):
    """Found by the hostile-file property test: a results file whose task held the key "" wrote a row with
    an empty metric, and the next build refused the CSV it had written itself."""
    file = write_results(tmp_path / "in", "nameless", GOOD)
    data = json.loads(file.read_text())
    data["results"]["phonebook_copy_20"][key] = 0.5
    file.write_text(json.dumps(data))
    for _ in range(2):
        report = build_leaderboard([tmp_path / "in"], tmp_path / "out")
        assert all(row["metric"].strip() for row in read_rows(tmp_path / "out"))
    assert any("a metric with no name" in problem.message for problem in report.problems)
