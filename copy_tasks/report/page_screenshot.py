"""The leaderboard page's picture in the docs, made by a command, and the numbers it shows.

    python -m copy_tasks.report.page_screenshot leaderboard docs/leaderboard_page.png

loads `leaderboard/index.html` in headless Chromium in a 1,400 x 900 window, as it opens, and
writes the screenshot, and beside it (`leaderboard_page.json`) the main table's cells as the page
holds them (`page_numbers`): a test compares them with the published page, so that a picture
showing numbers the page no longer has fails the tests until this command is run again.

    >>> page = ('<table id="leaderboard"><tbody><tr data-entry="m"><td data-value="m">m</td>'
    ...         '<td data-value="0.5">0.50<span>10</span></td></tr></tbody></table><p>not a cell</p>')
    >>> page_numbers(page)
    {'m': ['m', '0.50 10']}
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape
from pathlib import Path

WINDOW = (1400, 900)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
# Chromium on a machine with no network: no background connections, nothing of the user's profile.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
ROW = re.compile(r'<tr data-entry="(?P<entry>[^"]*)"[^>]*>(?P<cells>.*?)</tr>', re.S)
CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)


def page_numbers(page: str) -> dict[str, list[str]]:
    """The main table's rows of a page: entry -> each cell's text (its notes after a space)."""
    table = page[page.index('<table id="leaderboard"'):page.index("</table>")]
    return {unescape(row["entry"]): [unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip())
                                     for cell in CELL.findall(row["cells"])]
            for row in ROW.finditer(table)}


def screenshot(leaderboard: Path, out: Path) -> Path:
    """Write `out` (PNG) of `leaderboard/index.html` as it opens, and its numbers beside it."""
    for path in (out, out.with_suffix(".json")):
        if path.is_symlink():  # never written through a link to someone else's file
            raise SystemExit(f"page_screenshot: error: {path} is a symbolic link: not written through; remove it")
    chromium = next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    if chromium is None:
        raise SystemExit("page_screenshot: error: headless Chromium is not installed (apt-get install -y chromium)")
    page = (leaderboard / "index.html").resolve()
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={out.resolve()}",
                               page.as_uri()], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not out.is_file():
        raise SystemExit(f"page_screenshot: error: Chromium failed (exit {done.returncode}): {done.stderr[-500:]}")
    numbers = out.with_suffix(".json")
    rows = page_numbers(page.read_text(encoding="utf-8"))
    lines = [f"{json.dumps(entry, ensure_ascii=False)}: {json.dumps(cells, ensure_ascii=False)}"
             for entry, cells in rows.items()]  # a row a line: a changed number is a changed line
    numbers.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    return numbers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m copy_tasks.report.page_screenshot",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("leaderboard", type=Path, help="a leaderboard folder (its index.html)")
    parser.add_argument("out", type=Path, help="the PNG to write; its numbers go beside it as .json")
    args = parser.parse_args(argv)
    numbers = screenshot(args.leaderboard, args.out)
    print(f"wrote {args.out} and {numbers}", file=sys.stderr)


if __name__ == "__main__":
    main()
