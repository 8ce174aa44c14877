"""The Markdown sections other commands add to a leaderboard (`sections/*.md`: the training
experiments of `copy-tasks train`), and the summary's tables made outside it (the name-first
gap, queries answered, the state size), as HTML for `index.html`.

Only the Markdown those sections use is read: `#` headings (`#` and `##` as the page's own
section headings), paragraphs, pipe tables, `` `code` `` and images of the leaderboard's plots
(`![name](plots/<name>.png)`), which are inlined as `data:` URIs as the page's own plots are;
an image of anything else is shown as its name. Every piece of text is escaped: a section can
add no markup of its own.

    >>> print(section_html("## A <b>\\n\\n| x | y |\\n|---|---:|\\n| `a` | 1 |\\n", {}))
    <h2>A &lt;b&gt;</h2>
    <table class="section"><thead><tr><th>x</th><th>y</th></tr></thead>
    <tbody><tr><td><code>a</code></td><td>1</td></tr></tbody></table>
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Mapping

IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]*)\)$")
MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~$])")
# An escaped character, or a code span: read left to right, so an escaped backtick opens no span.
ESCAPE_OR_CODE = re.compile(MARKDOWN_ESCAPE.pattern + r"|`(?P<code>[^`]+)`")


def plain(markdown: str) -> str:
    r"""Markdown text outside code as it reads: backslash escapes and HTML entities (which
    `summary.markdown_text` writes) undone, to be escaped again for the page.

    >>> plain(r"bounded\_state\(bits=64\) &lt;10 a\$b")
    'bounded_state(bits=64) <10 a$b'
    """
    return html.unescape(MARKDOWN_ESCAPE.sub(r"\1", markdown))


def inline(value: str, escape: Callable[[str], str]) -> str:
    r"""Text with `` `code` `` spans, escaped; a backtick escaped as `summary.markdown_text`
    writes it (a model's name) is text, not the start of a span.

    >>> inline(r"a\`b\` \$1 `x`", lambda text: text)
    'a`b` $1 <code>x</code>'
    """
    pieces, start = [], 0
    for match in ESCAPE_OR_CODE.finditer(value):
        if match["code"] is not None:
            pieces += [escape(plain(value[start:match.start()])), f"<code>{escape(match['code'])}</code>"]
            start = match.end()
    return "".join(pieces) + escape(plain(value[start:]))


UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    """A table row's cells, split at the pipes Markdown does not escape (`\\|` is text).

    >>> _cells(r"| a\\|b | 1 |")
    ['a\\\\|b', '1']
    """
    return [cell.strip() for cell in UNESCAPED_PIPE.split(line.strip().removeprefix("|").removesuffix("|"))]


def section_html(markdown: str, plots: Mapping[str, bytes], escape: Callable[[str], str] | None = None) -> str:
    """One section as HTML; `plots`: the leaderboard's plot files by name."""
    if escape is None:
        def escape(value: str) -> str:
            return html.escape(value, quote=True)

    out = []
    blocks = markdown.split("\n\n")
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if lines[0].startswith("#"):
            level = min(6, max(2, len(lines[0]) - len(lines[0].lstrip("#"))))
            out.append(f"<h{level}>{inline(lines[0].lstrip('#').strip(), escape)}</h{level}>")
            lines = lines[1:]
            if not lines:
                continue
        if all(line.lstrip().startswith("|") for line in lines) and len(lines) >= 2:
            header, body = _cells(lines[0]), [_cells(line) for line in lines[2:]]
            head = "".join(f"<th>{inline(cell, escape)}</th>" for cell in header)
            rows = "".join("<tr>" + "".join(f"<td>{inline(cell, escape)}</td>" for cell in row) + "</tr>"
                           for row in body)
            out.append(f'<table class="section"><thead><tr>{head}</tr></thead>\n<tbody>{rows}</tbody></table>')
            continue
        images = [IMAGE.match(line.strip()) for line in lines]
        if all(images):
            for match in images:
                alt, target = match.group(1), match.group(2)
                name = target.removeprefix("plots/")
                if target.startswith("plots/") and name in plots:
                    data = base64.b64encode(plots[name]).decode()
                    out.append(f'<figure><img alt="{escape(alt)}" src="data:image/png;base64,{data}"></figure>')
                else:
                    out.append(f"<p>{escape(alt)}</p>")
            continue
        paragraph = " ".join(line.strip() for line in lines)
        out.append(f"<p>{inline(paragraph, escape)}</p>")
    return "\n".join(out)
