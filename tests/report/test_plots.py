"""The plots (`copy_tasks.report.plots`): one per family and variant, valid PNGs, axes and lines labelled."""

from __future__ import annotations

from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard

GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}


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
    assert all(text in ("exact match (our rule)", "exact match (teacher-forced)",
                        "bits per character of the target (lower is better)")
               for kind, text in drawn if kind == "y")


GEMMA_SCORES = {
    "phonebook_copy_20": {"exact_match": 0.9, "exact_match_stderr": 0.1},
    "phonebook_copy_tf_50": {"exact_match": 0.5, "exact_match_stderr": 0.25, "bits_per_char": 0.125,
                             "bits_per_char_stderr": 0.0625},
}


def test_plots_are_valid_pngs_one_per_family_and_variant(tmp_path):
    write_results(tmp_path / "in", "gemma", GEMMA_SCORES)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    plots = sorted((tmp_path / "out" / "plots").iterdir())
    assert [path.name for path in plots] == ["phonebook_copy.png", "phonebook_copy_tf.png",
                                             "phonebook_copy_tf_bits_per_char.png"]
    for path in plots:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 100 and height > 100
        assert data[-8:-4] == b"IEND"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "![phonebook_copy.png](plots/phonebook_copy.png)" in summary


def lines_of(figure) -> dict[str, tuple[str, str, list[float]]]:
    """label -> (colour, marker, x values) of each curve of a leaderboard figure."""
    from matplotlib.colors import to_hex

    axes = figure.axes[0]
    handles, labels = axes.get_legend_handles_labels()
    found = {}
    for handle, label in zip(handles, labels):
        line = handle.lines[0]  # an errorbar container: its data line first
        found[label] = (to_hex(line.get_color()), line.get_marker(), list(line.get_xdata()))
    return found


def rows_of(tmp_path, runs: dict[str, dict]) -> list[dict]:
    from copy_tasks.report.rows import rows_from_file

    rows = []
    for index, (model, scores) in enumerate(runs.items()):
        path = write_results(tmp_path / "in", model, scores, date=f"2026-11-0{index + 1}T10:00:00")
        rows += [dict(row.cells()) for row in rows_from_file(path)[0]]
    return [{key: "" if value is None else str(value) for key, value in row.items()} for row in rows]


def test_each_plot_shows_what_its_table_ranks_and_bits_per_character_its_own(tmp_path):
    """Issue 44 finding 6: the teacher-forced plot showed bits per character while its table
    ranks exact match. Now each table's plot draws the table's own per-length values."""
    from copy_tasks.report.length_tables import length_tables
    from copy_tasks.report.plots import PLOTTED, family_figure
    from copy_tasks.report.score_table import OUR_RULE, TEACHER_FORCED_RULE, score_table

    scores = {"random_copy_10": {"exact_match": 1.0, "authors_exact_match": 0.0},
              "random_copy_20": {"exact_match": 0.5, "authors_exact_match": 0.0},
              "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.25},
              "random_copy_tf_20": {"exact_match": 0.0, "bits_per_char": 3.5}}
    rows = rows_of(tmp_path, {"m": scores})
    plotted = {(variant, metric): (label, suffix) for variant, metric, label, suffix in PLOTTED}
    for rule, expected in ((OUR_RULE, [1.0, 0.5]), (TEACHER_FORCED_RULE, [1.0, 0.0])):
        label, _ = plotted[(rule.variant, rule.metric)]
        (table,) = length_tables(score_table(rows, rule))
        ((_, values, _),) = table.rows
        assert [values[length] for length in table.lengths] == expected  # the table, as worked by hand
        axes = family_figure(rows, "random_copy", rule.variant, rule.metric, label).axes[0]
        assert list(axes.containers[0].lines[0].get_ydata()) == expected and "exact match" in axes.get_ylabel()
    label, suffix = plotted[("teacher_forced", "bits_per_char")]
    axes = family_figure(rows, "random_copy", "teacher_forced", "bits_per_char", label).axes[0]
    assert suffix == "_tf_bits_per_char" and list(axes.containers[0].lines[0].get_ydata()) == [0.25, 3.5]


def test_a_model_has_one_colour_and_marker_in_every_plot_and_names_show_as_on_the_page(tmp_path):
    from copy_tasks.report.plots import PLOTTED, family_figure, model_styles

    # zeta runs only the phone book: in a colour cycle per plot, gemma would change colour between plots
    runs = {"zeta": {"phonebook_copy_20": {"exact_match": 1.0}, "phonebook_copy_50": {"exact_match": 1.0}},
            "gemma\u202e": {"phonebook_copy_20": {"exact_match": 1.0}, "phonebook_copy_50": {"exact_match": 1.0},
                            "lookup_prefix_20": {"exact_match": 0.5}, "lookup_prefix_50": {"exact_match": 0.0}}}
    rows = rows_of(tmp_path, runs)
    styles = model_styles(rows)
    _, metric, label, _ = PLOTTED[0]
    phone_book = lines_of(family_figure(rows, "phonebook_copy", "generation", metric, label, styles))
    lookup = lines_of(family_figure(rows, "lookup_prefix", "generation", metric, label, styles))
    shown = "gemma\\u202e"  # the right-to-left override written as its code point, as on the page
    assert sorted(phone_book) == [shown, "zeta"] and sorted(lookup) == [shown]
    assert phone_book[shown][:2] == lookup[shown][:2] != phone_book["zeta"][:2]
    # two curves at 1.0 on each other are set apart along x, each by a hair
    assert phone_book[shown][2] != phone_book["zeta"][2]
    assert all(abs(x / length - 1) < 0.05 for x, length in zip(phone_book["zeta"][2], (20, 50)))


def test_n_goes_on_a_linear_axis_and_long_ranges_on_a_log_one(tmp_path):
    from copy_tasks.report.plots import PLOTTED, family_figure

    scores = {f"dup_ngram_copy_{n}": {"exact_match": 1.0} for n in range(1, 9)}
    scores |= {"phonebook_copy_20": {"exact_match": 1.0}, "phonebook_copy_500": {"exact_match": 0.0}}
    rows = rows_of(tmp_path, {"model": scores})
    _, metric, label, _ = PLOTTED[0]
    ngrams = family_figure(rows, "dup_ngram_copy", "generation", metric, label).axes[0]
    assert ngrams.get_xscale() == "linear" and list(ngrams.get_xticks()) == list(range(1, 9))
    assert family_figure(rows, "phonebook_copy", "generation", metric, label).axes[0].get_xscale() == "log"


def test_a_long_legend_label_is_inside_the_image(tmp_path):
    import io

    from PIL import Image

    from copy_tasks.report.plots import PLOTTED, family_figure, png_of

    long_name = "an-organisation/a-model-with-a-very-long-name-" + "x" * 60
    rows = rows_of(tmp_path, {long_name: {"phonebook_copy_20": {"exact_match": 1.0}}})
    _, metric, label, _ = PLOTTED[0]
    figure = family_figure(rows, "phonebook_copy", "generation", metric, label)
    figure.canvas.draw()
    legend_right = figure.axes[0].get_legend().get_window_extent().x1  # pixels of the figure as laid out
    content_left = figure.get_tightbbox().x0 * figure.dpi
    width = Image.open(io.BytesIO(png_of(figure))).size[0]
    assert legend_right > 800  # past the figure's own 8 inches at 100 dpi: a plain save would cut it
    assert width >= legend_right - content_left  # the image holds everything from the left edge to the legend's end


def test_a_plot_of_few_docs_a_point_says_how_many_and_by_position_says_n_and_whom(tmp_path):
    """Issue 56 findings 6 and 7: a 4-doc run moves in steps of 0.25 and its plot did not say so;
    the by-position plot showed only the models that logged samples, unsaid, and no n per point."""
    from leaderboard_fixtures import write_results as write

    from copy_tasks.report.plots import family_figure, position_figure
    from copy_tasks.report.rows import rows_from_file

    rows = []
    for index, (model, n) in enumerate((("few", 4), ("many", 20))):
        path = write(tmp_path / "in", model, {"random_copy_10": {"exact_match": 0.5}}, n=n,
                     date=f"2026-11-0{index + 1}T10:00:00")
        rows += [{key: "" if value is None else str(value) for key, value in dict(row.cells()).items()}
                 for row in rows_from_file(path)[0]]
    labels = family_figure(rows, "random_copy", "generation", "exact_match", "exact match").axes[0] \
        .get_legend_handles_labels()[1]
    assert labels == ["few (4 docs a point)", "many"]

    by_position = [{**rows[0], "family": "phonebook_copy", "metric": f"exact_match_{third}", "value": value,
                    "n": n, "length": "10"} for third, value, n in (("beginning", "1.0", "3"), ("end", "0.5", "4"))]
    phonebook = [{**row, "family": "phonebook_copy"} for row in rows]  # both models ran it
    axes = position_figure(by_position + phonebook, "phonebook_copy").axes[0]
    assert sorted(text.get_text() for text in axes.texts) == ["n=3", "n=4"]
    assert "1 of the 2 models run on it: those whose runs logged samples" in axes.get_title()
