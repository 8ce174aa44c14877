"""The summary (`copy_tasks.report.summary`): effective length and AUC on hand-worked curves, what
it leaves out, names as written."""

from __future__ import annotations

from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.curves import area_under_curve


def test_the_summary_shows_names_as_written_and_escapes_what_markdown_or_unicode_would_hide(tmp_path):
    names = ["=HYPERLINK(1)", "\r=1+1", "=1+1", "_u_", "abc\u202edef"]
    for day, name in enumerate(names, start=1):
        write_results(tmp_path / "in", name, {"random_copy_10": {"exact_match": 0.5}}, date=f"2026-11-0{day}T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    rows = [line.split(" | ")[0] for line in summary.splitlines() if line.startswith("| ") and "transformer" in line]
    assert sorted(set(rows)) == sorted(["| =HYPERLINK\\(1\\)", "| \\\\r=1+1", "| =1+1", "| \\_u\\_",
                                        "| abc\\\\u202edef"])  # five models, five rows
    assert "'=HYPERLINK" not in summary and "\u202e" not in summary


GOOD = {"phonebook_copy_20": {"exact_match": 0.5, "exact_match_stderr": 0.25, "overflow": 0.0},
        "random_copy_tf_10": {"exact_match": 1.0, "bits_per_char": 0.5}}


def test_model_names_are_escaped_in_the_summary_and_plots(tmp_path):
    write_results(tmp_path / "in", "$\\frac{a$", GOOD)
    write_results(tmp_path / "in", "![x](http://a.b)<script>", GOOD, date="2026-11-03T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| \\!\\[x\\]\\(http://a.b\\)&lt;script&gt; |" in summary and "| \\$\\\\frac{a\\$ |" in summary
    assert (tmp_path / "out" / "plots" / "phonebook_copy.png").stat().st_size > 1000


def test_lengths_that_overflowed_are_left_out_of_the_summary_and_named(tmp_path):
    write_results(tmp_path / "in", "pythia", {
        "phonebook_copy_20": {"exact_match": 1.0, "overflow": 0.0},
        "phonebook_copy_50": {"exact_match": 0.8, "overflow": 0.0},
        "phonebook_copy_100": {"exact_match": 0.0, "overflow": 0.5},  # scores of the docs that fit
        "phonebook_copy_200": {"overflow": 1.0},  # every doc cut: no score at all
    })
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    auc = area_under_curve([(20, 1.0), (50, 0.8)])
    assert f"| pythia | transformer | - | 50 / {auc:.2f} (20-50); overflow at 100, 200 |" in summary


def test_per_length_tables_hand_worked(tmp_path):
    """alpha: 1.0, 1.0, 0.2 at 10, 20, 50 symbols, mean 2.2 / 3 = 0.73 over all three; beta: 0.5
    and 0.0 at 10 and 20, and a doc cut at 50 (shown `cut`): mean 0.25 over 10-20 alone, said so."""
    write_results(tmp_path / "in", "alpha", {f"random_copy_{length}": {"exact_match": value, "overflow": 0.0}
                                             for length, value in ((10, 1.0), (20, 1.0), (50, 0.2))})
    write_results(tmp_path / "in", "beta", {"random_copy_10": {"exact_match": 0.5, "overflow": 0.0},
                                            "random_copy_20": {"exact_match": 0.0, "overflow": 0.0},
                                            "random_copy_50": {"exact_match": 0.0, "overflow": 0.5}},
                  date="2026-11-02T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    per_length = summary.split("\n## Per length\n")[1]
    ours = per_length.split("\n### Generation, our rule")[1].split("\n### ")[0]
    assert ("#### random_copy (symbols)\n\n| model | flags | 10 | 20 | 50 | mean |\n|---|---|---:|---:|---:|---:|\n"
            "| alpha | - | 1.00 | 1.00 | 0.20 | 0.73 |\n| beta | - | 0.50 | 0.00 | cut | 0.25 (10-20) |") in ours
    assert "sorting a column orders rows within each range of lengths only" in summary


def test_the_prompt_tokens_each_length_took_are_tabled(tmp_path):
    metadata = {"random_copy_10": {"copy_tasks_prompt_tokens_mean": 31.5, "copy_tasks_prompt_tokens_max": 40},
                "random_copy_20": {"copy_tasks_prompt_tokens_mean": 60.0, "copy_tasks_prompt_tokens_max": 61}}
    write_results(tmp_path / "in", "m", {task: {"exact_match": 1.0} for task in metadata}, task_metadata=metadata)
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    # 31.5 is shown rounded half to even: 32
    assert "#### random_copy: prompt tokens (symbols -> tokens, mean (max))\n\n| model | 10 | 20 |\n|---|---:|---:|\n" \
           "| m | 32 (40) | 60 (61) |" in summary


def mqar(value: float) -> dict:
    return {"exact_match": value, "exact_match_stderr": 0.1, "overflow": 0.0, "query_accuracy": value}


def summary_rows(out, name: str) -> list[str]:
    return [line for line in (out / "summary.md").read_text().splitlines() if line.startswith(f"| {name} |")]


def test_runs_of_one_model_in_two_mqar_formats_are_two_rows_never_one_curve(tmp_path):
    zoology = {task: {"copy_tasks_mqar_format": "zoology"} for task in ("mqar_8", "mqar_16")}
    write_results(tmp_path / "in", "m", {"mqar_8": mqar(0.0), "mqar_16": mqar(0.0)}, task_metadata=zoology)
    write_results(tmp_path / "in", "m", {"mqar_8": mqar(0.625)}, date="2026-11-02T10:00:00")  # natural, later
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    # before: one row `8 / 0.31 (8-16) [copy_tasks_mqar_format=zoology]`, its 8 the natural run's 0.62
    assert summary_rows(tmp_path / "out", "m")[:2] == [
        "| m | transformer | - | 8 / 0.62 (8) |",
        "| m | transformer | copy_tasks_mqar_format=zoology | <8 / 0.00 (8-16) |"]


def test_one_model_through_two_backends_is_two_rows_and_the_build_succeeds(tmp_path):
    write_results(tmp_path / "in", "m", {"mqar_8": mqar(1.0)}, backend="hf")
    write_results(tmp_path / "in", "m", {"mqar_8": mqar(0.5)}, date="2026-11-02T10:00:00", backend="hf_fast")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")  # was: ZeroDivisionError in area_under_curve
    assert summary_rows(tmp_path / "out", "m")[:2] == ["| m | transformer | backend=hf | 8 / 1.00 (8) |",
                                                       "| m | transformer | backend=hf_fast | 8 / 0.50 (8) |"]


def test_values_of_few_docs_name_them_and_the_suite_line_says_what_made_the_runs(tmp_path):
    """Issue 44 finding 5: the main job scores 4 docs a length, so a value moves in steps of 0.25,
    and nothing said so. Now a value of fewer than 20 docs names them (3 right of 4 is
    `0.50 (2/4)`), a cell of the overview its docs per length, and the line the suite gives
    (`made_by`) opens the summary; 20 docs are shown as before."""
    write_results(tmp_path / "in", "gemma", {"random_copy_10": {"exact_match": 1.0},
                                             "random_copy_20": {"exact_match": 0.5}}, n=4)
    write_results(tmp_path / "in", "copier", {"random_copy_10": {"exact_match": 1.0},
                                              "random_copy_20": {"exact_match": 0.0}}, n=20, date="2026-11-02T10:00:00")
    line = "Made by `copy-tasks suite --preset quick`: gemma at 4 docs per length; copier at 20."
    build_leaderboard([tmp_path / "in"], tmp_path / "out", made_by=line)
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert summary.split("\n\n")[2] == line
    ours = summary.split("\n## Generation, our rule")[1].split("\n## ")[0]
    assert "| gemma | transformer | - | 20 / 0.75 (10-20, 4 docs per length) |" in ours
    assert "| copier | transformer | - | 10 / 0.50 (10-20) |" in ours
    per_length = summary.split("\n### Generation, our rule")[1].split("\n### ")[0]
    assert "| gemma | - | 1.00 (4/4) | 0.50 (2/4) | 0.75 |" in per_length
    assert "| copier | - | 1.00 | 0.00 | 0.50 |" in per_length
