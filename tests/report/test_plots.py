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
    assert all(text in ("exact match (our rule)", "bits per character of the target (lower is better)")
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
    assert [path.name for path in plots] == ["phonebook_copy.png", "phonebook_copy_tf.png"]
    for path in plots:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 100 and height > 100
        assert data[-8:-4] == b"IEND"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "![phonebook_copy.png](plots/phonebook_copy.png)" in summary
