"""Names and flags written as themselves in the summary (Markdown) and on the page: invisible
characters shown as their code points (`visible`), Markdown and HTML syntax escaped
(`markdown_text`)."""

from __future__ import annotations

import html
import re
import unicodedata

MARKDOWN_SPECIALS = re.compile(r"([\\`*\[\]()!|$~#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def visible(text: str) -> str:
    r"""Text with its invisible format and control characters (a right-to-left override, a
    line break) written as their code points, so that a name shows as it is.

    >>> print(visible("abc\u202edef\r"))
    abc\u202edef\u000d
    """
    return "".join(f"\\u{ord(char):04x}" if unicodedata.category(char) in ("Cc", "Cf") else char for char in text)


def markdown_text(text: str) -> str:
    r"""Text shown as itself in Markdown: HTML and Markdown syntax escaped (an underscore only
    where it could start or end emphasis), and invisible format and control characters (a
    right-to-left override, a carriage return) written as their code points.

    >>> print(markdown_text("![x](http://a.b)<script>|"), markdown_text("gemma-3_270m"), markdown_text("_u_"))
    \!\[x\]\(http://a.b\)&lt;script&gt;\| gemma-3_270m \_u\_
    >>> print(markdown_text("abc\u202edef"), markdown_text("\r=1+1"))
    abc\\u202edef \\u000d=1+1
    """
    return MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(visible(text), quote=False))
