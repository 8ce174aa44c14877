"""The page's sections (`copy_tasks.report.page_sections`): shown escaped, only the leaderboard's plots inlined."""

from __future__ import annotations


def test_a_section_is_shown_escaped_and_only_the_leaderboards_plots_are_inlined():
    from copy_tasks.report.html_page import text
    from copy_tasks.report.page_sections import section_html

    hostile = ("## <script>alert(1)</script>\n\nA `<img src=x>` here.\n\n| a | <b> |\n|---|---|\n| 1 | 2 |\n\n"
               "![shown](plots/p.png)\n![kept out](https://example.com/x.png)\n![also out](../secret.png)\n")
    html = section_html(hostile, {"p.png": b"\x89PNG"}, text)
    assert "<script>" not in html and "&lt;script&gt;" in html and "<code>&lt;img src=x&gt;</code>" in html
    assert "<th>&lt;b&gt;</th>" in html and "<td>1</td><td>2</td>" in html
    assert html.count("<img ") == 1 and 'alt="shown" src="data:image/png;base64,iVBORw=="' in html
    assert "example.com" not in html and "<p>kept out</p>" in html and "<p>also out</p>" in html


def test_a_name_with_backticks_and_dollars_reads_in_the_sections_as_in_the_main_table(tmp_path):
    from leaderboard_fixtures import write_results

    from copy_tasks.report.build import build_leaderboard
    from copy_tasks.report.display_names import name_rule

    scores = {"mqar_8": {"exact_match": 1.0, "query_accuracy": 1.0}}
    write_results(tmp_path / "in", "m", scores, task_metadata={"mqar_8": {"copy_tasks_state_bits": 64}})
    build_leaderboard([tmp_path / "in"], tmp_path / "out", names=[name_rule("m=a`b`$c$")])
    page = (tmp_path / "out" / "index.html").read_text()
    assert '<td data-value="a`b`$c$">a`b`$c$</td>' in page  # the main table
    # before: <td>a\<code>b\</code>\$c\$</td> in both sections
    assert "<td>a`b`$c$</td><td>generation</td><td>1.00</td>" in page  # queries answered
    assert "<td>a`b`$c$</td><td>generation</td><td>64</td>" in page  # state size
