"""Names written as themselves (`copy_tasks.report.markdown`)."""

from __future__ import annotations

from copy_tasks.report.markdown import markdown_text, visible


def test_markdown_syntax_and_invisible_characters_are_shown_as_text():
    assert markdown_text("a*b*|c") == "a\\*b\\*\\|c"
    assert markdown_text("snake_case_name") == "snake_case_name"  # an underscore inside a word stays
    assert visible("a\u200bb\n") == "a\\u200bb\\u000a"
