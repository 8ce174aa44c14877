"""The state-size axis of the leaderboard (`copy_tasks.report.state_axis`): the `state_bits`
column read from what a run recorded, the summary's table and the plot, on hand-made rows."""

from __future__ import annotations

import csv

import pytest
from leaderboard_fixtures import GOOD, read_rows, write_results

from copy_tasks.models.bounded_state import copy_bound_length
from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.schema import SCHEMA_VERSION, UPGRADABLE_SCHEMAS
from copy_tasks.report.state_axis import state_points, state_size_figure, state_size_markdown


def row(name, bits, length, value, family="random_copy", variant="generation", metric="exact_match"):
    backend = "bounded_state" if name.startswith("bounded_state(") else "hf"
    return {"name": name, "flags": "", "family": family, "variant": variant, "metric": metric, "value": value,
            "stderr": "0", "length": length, "state_bits": bits, "backend": backend}


def curve(name, bits, values, family="random_copy", variant="generation"):
    return [row(name, bits, str(length), str(value), family, variant) for length, value in values]


ROWS = [
    *curve("mamba", "4096", [(10, 1.0), (20, 0.75), (50, 0.25)]),  # effective length 20
    *curve("bounded_state(bits=64)", "64", [(10, 1.0), (20, 0.0), (50, 0.0)]),  # 10
    *curve("bounded_state(bits=512)", "512", [(10, 1.0), (20, 1.0), (50, 1.0)]),  # 50: every length
    *curve("lstm", "1024", [(10, 0.25), (20, 0.0)]),  # under the shortest
    *curve("gemma", "", [(10, 1.0), (20, 1.0)]),  # a transformer: no state size
    *curve("mamba", "4096", [(8, 1.0), (16, 0.0)], family="mqar", variant="teacher_forced"),
    row("mamba", "4096", "20", "0.5", metric="bits_per_char"),  # not the axis' metric
]


def test_each_model_with_a_state_size_is_a_point_with_its_effective_length():
    points = state_points(ROWS)
    assert list(points) == ["mqar", "random_copy"]  # family order
    assert [(p.model, p.bits, p.score.shown_effective) for p in points["random_copy"]] == [
        ("bounded_state(bits=64)", 64, "10"), ("bounded_state(bits=512)", 512, "50"), ("lstm", 1024, "<10"),
        ("mamba", 4096, "20")]
    assert [(p.model, p.variant, p.score.effective) for p in points["mqar"]] == [("mamba", "teacher_forced", 8)]


def test_a_model_whose_rows_disagree_on_its_state_size_is_left_out():
    rows = ROWS + [row("mamba", "2048", "100", "0.0")]
    assert "mamba" not in [p.model for p in state_points(rows)["random_copy"]]


def test_the_summary_tables_bits_and_effective_lengths_per_family():
    lines = state_size_markdown(ROWS)
    assert lines[1] == "## State size"
    assert lines[-7:] == [
        "| model | variant | state bits | mqar | random_copy |", "|---|---|---:|---:|---:|",
        "| bounded_state\\(bits=64\\) | generation | 64 | - | 10 |",
        "| bounded_state\\(bits=512\\) | generation | 512 | - | 50 |",
        "| lstm | generation | 1,024 | - | <10 |", "| mamba | generation | 4,096 | - | 20 |",
        "| mamba | teacher_forced | 4,096 | 8 | - |"]
    assert not any("gemma" in line for line in lines)
    assert state_size_markdown(curve("gemma", "", [(10, 1.0)])) == []


def test_the_plot_draws_the_budgets_as_a_line_the_models_as_markers_and_the_copy_bound():
    figure = state_size_figure(ROWS)
    (copy,) = [axes for axes in figure.axes if axes.get_visible()]  # mqar: one model, nothing to compare
    assert copy.get_title() == "random_copy"
    lines = {line.get_label(): line for line in copy.get_lines()}
    budgets = lines["bounded_state's budgets (generation)"]
    assert list(budgets.get_xdata()) == [64, 512] and list(budgets.get_ydata()) == [10, 50]
    assert (lines["mamba (generation)"].get_marker(), list(lines["mamba (generation)"].get_ydata())) == ("o", [20])
    assert (lines["lstm (generation)"].get_marker(), list(lines["lstm (generation)"].get_ydata())) == ("v", [5.0])
    assert list(lines["bounded_state(bits=512) (generation)"].get_ydata()) == [50]
    bound = lines["Theorem 2.7 bound"]
    assert list(bound.get_xdata()) == [32, 8192]
    assert list(bound.get_ydata()) == [copy_bound_length(32), copy_bound_length(8192)]
    assert state_size_figure(curve("gemma", "", [(10, 1.0)])) is None


def test_a_model_named_like_bounded_state_is_a_marker_and_only_bounded_state_is_the_budget_line():
    rows = [*curve("bounded_state mamba", "4096", [(10, 1.0), (20, 0.0)]),  # a Mamba's label (hf)
            *curve("budget", "64", [(10, 1.0), (20, 0.0)]), *curve("budget 2", "256", [(10, 1.0), (20, 1.0)])]
    for entry in rows[2:]:
        entry["backend"] = "bounded_state"  # bounded_state under labels of its own
    lines = {line.get_label(): line for line in state_size_figure(rows).axes[0].get_lines()}
    # before: the Mamba was drawn grey, in the budgets' line, and the budgets were not markers of their own
    assert list(lines["bounded_state's budgets (generation)"].get_xdata()) == [64, 256]
    assert list(lines["bounded_state mamba (generation)"].get_xdata()) == [4096]
    assert list(lines["budget (generation)"].get_xdata()) == [64]


def test_the_plot_of_the_main_job_draws_only_panels_that_compare_in_the_models_colours_and_names_what_it_draws():
    """Issue 44 finding 7: at the main job's setting (`bounded_state` at its one budget, both
    variants, and a transformer) seven of eight panels held one grey marker, and the legend named
    line styles that were not drawn. Now: only `random_copy`'s panel (its point against the bound),
    the point in `bounded_state`'s colour of the other plots, hollow where teacher-forced, and a
    legend of what is drawn."""
    from matplotlib.colors import to_hex

    from copy_tasks.report.plots import model_styles

    rows = [*curve("bounded_state", "256", [(10, 1.0), (50, 1.0), (100, 0.0)]),
            *curve("bounded_state", "256", [(10, 1.0), (50, 1.0), (100, 0.0)], variant="teacher_forced"),
            *curve("bounded_state", "256", [(10, 1.0), (20, 0.0)], family="phonebook_copy"),
            *curve("bounded_state", "256", [(10, 1.0), (20, 0.0)], family="phonebook_copy", variant="teacher_forced"),
            *curve("gemma", "", [(10, 1.0), (20, 1.0)], family="phonebook_copy")]
    for entry in rows:
        entry["backend"] = "bounded_state" if entry["name"] == "bounded_state" else "hf"
    colours = {model: style.colour for model, style in model_styles(rows).items()}
    figure = state_size_figure(rows, colours)
    shown = [axes for axes in figure.axes if axes.get_visible()]
    assert [axes.get_title() for axes in shown] == ["random_copy"]
    drawn = {line.get_label(): line for line in shown[0].get_lines()}
    generated, forced = drawn["bounded_state (generation)"], drawn["bounded_state (teacher_forced)"]
    assert to_hex(generated.get_color()) == to_hex(forced.get_color()) == colours["bounded_state"] != to_hex("grey")
    assert generated.get_markerfacecolor() != "none" and forced.get_markerfacecolor() == "none"
    (legend,) = figure.legends
    assert sorted(text.get_text() for text in legend.get_texts()) == sorted(drawn)  # no line style not drawn
    assert all(len(line.get_xdata()) >= 1 for line in drawn.values())
    assert "No plot" not in " ".join(state_size_markdown(rows))
    assert state_size_figure([entry for entry in rows if entry["family"] == "phonebook_copy"]) is None
    assert "No plot" in " ".join(state_size_markdown([entry for entry in rows if entry["family"] == "phonebook_copy"]))


def test_the_column_comes_from_what_the_run_recorded(tmp_path):
    recorded = {"copy_tasks_state_bits": 98_304}
    write_results(tmp_path / "in", "lstm", GOOD, model_type="copy_tasks_lstm",
                  task_metadata={task: recorded for task in GOOD})
    write_results(tmp_path / "in", "gemma", GOOD, date="2026-11-02T10:00:00")  # records none
    for bad, date in (("many", "03"), (-5, "04"), (True, "05"), (2.5, "06")):
        write_results(tmp_path / "in", f"odd-{date}", GOOD, date=f"2026-11-{date}T10:00:00",
                      task_metadata={task: {"copy_tasks_state_bits": bad} for task in GOOD})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    bits = {(row["model"], row["state_bits"]) for row in read_rows(tmp_path / "out")}
    assert bits == {("lstm", "98304"), ("gemma", ""), *((f"odd-{date}", "") for date in ("03", "04", "05", "06"))}
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| lstm | teacher_forced | 98,304 |" in summary
    assert (tmp_path / "out" / "plots" / "state_size.png").is_file()
    page = (tmp_path / "out" / "index.html").read_text()  # the table on the page too, and the plot
    assert "<h2>State size</h2>" in page and "<td>lstm</td><td>teacher_forced</td><td>98,304</td>" in page
    assert "<figcaption>state_size.png</figcaption>" in page


@pytest.mark.parametrize("schema", ["1", "2"])
def test_a_csv_of_an_older_schema_is_upgraded_with_every_row_kept_and_no_state_size(tmp_path, schema):
    write_results(tmp_path / "in", "gemma", GOOD)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    path = tmp_path / "out" / "leaderboard.csv"
    current = read_rows(tmp_path / "out")
    with path.open("w", newline="") as handle:  # as a build of that schema wrote it
        writer = csv.DictWriter(handle, fieldnames=["schema_version", *UPGRADABLE_SCHEMAS[schema]],
                                extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, "schema_version": schema} for row in current)
    write_results(tmp_path / "new", "lstm", GOOD, date="2026-11-05T10:00:00",
                  task_metadata={task: {"copy_tasks_state_bits": 64} for task in GOOD})
    build_leaderboard([tmp_path / "new"], tmp_path / "out")
    rows = read_rows(tmp_path / "out")
    assert {row["schema_version"] for row in rows} == {SCHEMA_VERSION}
    assert sorted((row["model"], row["task"], row["metric"], row["state_bits"]) for row in rows) == sorted(
        [(row["model"], row["task"], row["metric"], "") for row in current]
        + [("lstm", row["task"], row["metric"], "64") for row in current])
