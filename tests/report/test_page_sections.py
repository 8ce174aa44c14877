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
