"""`index.html`: the leaderboard as a web page: its cells worked by hand, names that stay text,
relative links only, and (slow, in headless Chromium) a real click on a header that sorts it."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard

# Ends with a bell and a right-to-left override; the page writes them as their code points.
HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>&amp; \"q\"\u202e\x07"


HOSTILE_SHOWN = HOSTILE.replace("\u202e", "\\u202e").replace("\x07", "\\u0007")


OURS = "col-random_copy-generation-exact_match-effective"  # random_copy, our rule, effective length


CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def random_copy(ours: list[float], authors: list[float] | None = None, lengths=(10, 20, 50)) -> dict:
    return {f"random_copy_{length}": {"exact_match": our, "authors_exact_match": author}
            for length, our, author in zip(lengths, ours, authors or ours)}


def write_fixture_results(root: Path) -> Path:
    """Six rows (a model in two settings among them), results inside and outside the folder;
    returns the leaderboard folder they are built into."""
    out = root / "out"
    inside = out / "results"
    write_results(inside / "alpha", "alpha", {
        **random_copy([1.0, 1.0, 0.2], [1.0, 0.4, 0.0]),
        **{f"random_copy_tf_{length}": {"exact_match": 1.0, "bits_per_char": 0.1} for length in (10, 20, 50)},
        "phonebook_copy_10": {"exact_match": 1.0, "overflow": 0.0},
        "phonebook_copy_20": {"exact_match": 0.0, "overflow": 0.5},
    })
    write_results(inside / "alpha-chat", "alpha", random_copy([1.0], lengths=(10,)), date="2026-11-02T10:00:00",
                  chat_template="{{ x }}")
    write_results(root / "elsewhere" / "beta", "beta", random_copy([1.0, 1.0, 1.0]), date="2026-11-03T10:00:00")
    write_results(inside / "delta", "delta", random_copy([0.2, 0.0], lengths=(10, 20)), date="2026-11-04T10:00:00")
    write_results(inside / "gamma", "gamma", {"lookup_prefix_20": {"exact_match": 1.0}}, date="2026-11-05T10:00:00",
                  task_metadata={"lookup_prefix_20": {"copy_tasks_lookup_format": "paper"}})
    write_results(inside / "hostile", HOSTILE, {"phonebook_copy_10": {"exact_match": 0.5}}, date="2026-11-06T10:00:00")
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("page")
    out = write_fixture_results(root)
    report = build_leaderboard([out / "results", root / "elsewhere"], out)
    assert report.skipped_files == []
    return out


class Page(HTMLParser):
    """What the tests read of a page: the table's rows and headers, every URL, the scripts,
    the text of elements by id, and the attributes of <html>."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, list[tuple[str, str]]] = {}
        self.order: list[str] = []
        self.headers: dict[str, int] = {}
        self.urls: list[tuple[str, str]] = []
        self.scripts = 0
        self.by_id: dict[str, str] = {}
        self.root: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []  # (tag, id) of the elements whose text is read
        self._cell: list[str] | None = None
        self._in_board = False  # inside the main table (the per-length tables follow it)
        self.feed(source)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.urls += [(name, value) for name, value in attrs.items() if name in ("src", "href", "action")]
        if tag == "html":
            self.root = attrs
        if tag == "script":
            self.scripts += 1
        if tag == "table":
            self._in_board = attrs.get("id") == "leaderboard"
        if tag == "tr" and "data-entry" in attrs:
            self.order.append(attrs["data-entry"])
            self.rows[attrs["data-entry"]] = []
        if tag == "td" and self.order and self._in_board:
            self.rows[self.order[-1]].append((attrs["data-value"], ""))
        if tag == "th" and "data-column" in attrs:
            self.headers[attrs["id"]] = int(attrs["data-column"])
        if "id" in attrs:
            self.by_id[attrs["id"]] = ""
        if tag not in ("img", "meta", "wbr", "br", "link", "input"):
            self._open.append((tag, attrs.get("id")))

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for _, ident in self._open:
            if ident:
                self.by_id[ident] += data
        if self._open and self.order and self._in_board and any(tag == "td" for tag, _ in self._open):
            value, shown = self.rows[self.order[-1]][-1]
            self.rows[self.order[-1]][-1] = (value, shown + data)

    def cell(self, entry: str, header: str) -> tuple[str, str]:
        """(data-value, text) of a row's cell under a header (the AUC's text holds its notes)."""
        return self.rows[entry][self.headers[header]]


def page_of(out: Path) -> str:
    return (out / "index.html").read_text(encoding="utf-8")


def summary_rows(out: Path) -> list[tuple[str, ...]]:
    """(model, architecture, flags) of every row of every overview table of summary.md (before its
    per-length tables), Markdown escapes undone."""
    rows = set()
    overview = (out / "summary.md").read_text(encoding="utf-8").split("\n## Per length\n")[0]
    for line in overview.splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) > 3 and cells[0] not in ("model", "---") and not cells[0].startswith("---"):
            rows.add(tuple(re.sub(r"\\(.)", r"\1", cell) for cell in cells[:3]))
    return sorted(rows)


# ---- the page as text ----------------------------------------------------------------------
def test_every_row_of_the_summary_is_a_row_of_the_page(built):
    page = Page(page_of(built))
    shown = {tuple(page.rows[entry][column][1] for column in range(3)) for entry in page.order}
    expected = [("&lt;script&gt;document.title='pwned'&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp; "
                 "\"q\"\\u202e\\u0007", "transformer", "-"),
                ("alpha", "transformer", "-"), ("alpha", "transformer", "chat_template"),
                ("beta", "transformer", "-"), ("delta", "transformer", "-"),
                ("gamma", "transformer", "[copy_tasks_lookup_format=paper]")]
    assert summary_rows(built) == expected
    # the summary escapes HTML as entities, the page as markup: the same names once read
    assert sorted((html.unescape(model), *rest) for model, *rest in expected) == sorted(shown)
    assert page.order == sorted(page.order) and len(page.order) == 6


def test_cells_hold_both_rules_and_teacher_forcing_worked_by_hand(built):
    page = Page(page_of(built))
    # alpha's random_copy at 10, 20, 50 symbols. Ours: 1.0, 1.0, 0.2: effective 20; AUC
    # (ln 2 (1 + 1)/2 + ln 2.5 (1 + 0.2)/2) / ln 5 = 0.7723. The authors': 1.0, 0.4, 0.0:
    # effective 10, AUC (ln 2 (1.4)/2 + ln 2.5 (0.4)/2) / ln 5 = 0.4153. Teacher-forced: 1.0 throughout.
    for rule, effective, auc in (("generation-exact_match", "20", "0.77"),
                                 ("generation-authors_exact_match", "10", "0.42"),
                                 ("teacher_forced-exact_match", "50", "1.00")):
        assert page.cell("alpha", f"col-random_copy-{rule}-effective") == (effective, effective)
        value, shown = page.cell("alpha", f"col-random_copy-{rule}-auc")
        assert (f"{float(value):.2f}", shown) == (auc, f"{auc}10-50")
    assert round(float(page.cell("alpha", "col-random_copy-generation-exact_match-auc")[0]), 4) == 0.7723
    # delta fails at its shortest length: shown `<10`, sorted as 0; AUC (ln 2 (0.2 + 0)/2) / ln 2 = 0.10
    assert page.cell("delta", OURS) == ("0", "<10")
    assert page.cell("delta", "col-random_copy-generation-exact_match-auc")[1] == "0.1010-20"
    # not run: empty, to sort last; the teacher-forced column of a model without it
    assert page.cell("gamma", OURS) == ("", "-")
    assert page.cell("beta", "col-random_copy-teacher_forced-exact_match-auc") == ("", "-")
    # beside the cells, as the summary: the length that overflowed, the task's own flags
    assert page.cell("alpha", "col-phonebook_copy-generation-exact_match-auc")[1] == "1.0010overflow at 20"
    # a task flag every cell of a row has is said once, in its flags column (issue 56 finding 5: it
    # sat in every cell, wrapping the row, while the flags column said `-`); one length is `20`
    assert page.cell("gamma", "col-lookup_prefix-generation-exact_match-auc")[1] == "1.0020"
    assert page.cell("gamma", "col-flags")[1] == "[copy_tasks_lookup_format=paper]"
    assert page.cell("alpha [chat_template]", "col-flags") == ("chat_template", "chat_template")


def test_values_of_few_docs_name_them_and_the_page_says_what_made_the_runs(tmp_path):
    """Issue 44 finding 5, on the page: the docs per length under a cell's AUC and beside each
    per-length value where they are fewer than 20, and the suite's line (`made_by`) at the top."""
    write_results(tmp_path / "in", "gemma", random_copy([1.0, 0.5], lengths=(10, 20)), n=4)
    write_results(tmp_path / "in", "copier", random_copy([1.0, 0.0], lengths=(10, 20)), date="2026-11-02T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out",
                      made_by="Made by `copy-tasks suite --preset quick`: gemma at 4 docs per length; copier at 20.")
    source = page_of(tmp_path / "out")
    page = Page(source)
    assert page.cell("gemma", "col-random_copy-generation-exact_match-auc")[1] == "0.7510-204 docs"
    assert page.cell("copier", "col-random_copy-generation-exact_match-auc")[1] == "0.5010-20"
    ours = source.split('<h2 id="per-length">')[1].split("Generation, our rule")[1].split("<h3>")[0]
    assert "<td>gemma</td><td>-</td><td class=\"number\">1.00 (4/4)</td><td class=\"number\">0.50 (2/4)</td>" in ours
    assert "<td>copier</td><td>-</td><td class=\"number\">1.00</td><td class=\"number\">0.00</td>" in ours
    assert page.by_id["made-by"] == "Made by copy-tasks suite --preset quick: gemma at 4 docs per length; copier at 20."
    assert '<p id="made-by">Made by <code>copy-tasks suite --preset quick</code>:' in source


def opened_rule(source: str) -> str:
    (checked,) = re.findall(r'<input type="radio" name="rule" id="show-([^"]+)" checked>', source)
    return checked


def test_the_page_opens_on_the_rule_under_which_the_most_models_have_numbers(tmp_path):
    """Issue 44 finding 8: the main job generates three families and teacher-forces all of them; the
    page opened on the authors' rule, where its model's row was mostly `-`. Now it opens on the
    rule with the most cells with numbers (the first among equals), and says why a cell is `-`."""
    families = ("phonebook_copy", "random_copy", "lookup_prefix")
    everything = {f"{family}{variant}_20": {"exact_match": 1.0, "authors_exact_match": 1.0}
                  for family in families for variant in ("", "_tf")}
    write_results(tmp_path / "in", "reference", everything)
    write_results(tmp_path / "in", "gemma", {**{f"{family}_tf_20": {"exact_match": 1.0} for family in families},
                                             "phonebook_copy_20": {"exact_match": 1.0, "authors_exact_match": 1.0}},
                  date="2026-11-02T10:00:00")
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    source = page_of(tmp_path / "out")
    assert opened_rule(source) == "teacher_forced-exact_match"
    page = Page(source)
    assert all(page.cell("gemma", f"col-{family}-teacher_forced-exact_match-effective")[0] == "20"
               for family in families)
    assert "not run under the column's rule (a model run only teacher-forced has no generation numbers)" in source
    assert "opens on the rule under which the most cells have numbers (teacher-forced)" in source
    # as many cells under every rule: the first, the authors'
    even = tmp_path / "even"
    write_results(even, "reference", everything)
    build_leaderboard([even], tmp_path / "out-even")
    assert opened_rule(page_of(tmp_path / "out-even")) == "generation-authors_exact_match"


def test_hostile_names_stay_text(built):
    source = page_of(built)
    page = Page(source)
    assert page.scripts == 2  # the page's own: the name's <script> is text
    assert "<script>document" not in source and "<img src=x" not in source and "\u202e" not in source
    assert "\x07" not in source
    entry = next(entry for entry in page.order if entry.startswith("<script>"))
    assert entry == HOSTILE_SHOWN and page.cell(entry, "col-model") == (HOSTILE_SHOWN, HOSTILE_SHOWN)
    assert f"{HOSTILE_SHOWN}: " in page.by_id["raw-results"]


def test_links_are_relative_and_nothing_is_loaded_from_anywhere(built):
    source = page_of(built)
    page = Page(source)
    hrefs = [value for name, value in page.urls if name == "href"]
    assert hrefs[:2] == ["leaderboard.csv", "summary.md"]
    results = [unquote(href) for href in hrefs[2:]]
    assert sorted(Path(href).parent.name for href in results) == ["alpha", "alpha-chat", "delta", "gamma", "hostile"]
    assert all((built / href).is_file() and not href.startswith(("/", "..")) for href in results)
    assert "<code>results_2026-11-03T10-00-00.000000.json</code>" in source  # beta's file, outside: named only
    assert str(built.parent) not in source and "elsewhere" not in source
    assert not re.search(r"https?://|//[a-z]", re.sub(r"data:image/png;base64,[^\"]*", "", source), re.IGNORECASE)
    assert all(value.startswith("data:image/png;base64,") for name, value in page.urls if name == "src")
    assert "default-src 'none'; img-src data:;" in source


def test_the_plots_of_this_build_are_in_the_page(built):
    page = Page(page_of(built))
    images = [base64.b64decode(value.removeprefix("data:image/png;base64,")) for name, value in page.urls
              if name == "src"]
    written = sorted(path.name for path in (built / "plots").glob("*.png"))
    assert written == ["lookup_prefix.png", "phonebook_copy.png", "random_copy.png", "random_copy_tf.png",
                       "random_copy_tf_bits_per_char.png"]
    # the headline figure (the phone book's) above the table, then the others in name order
    shown = ["phonebook_copy.png", *(name for name in written if name != "phonebook_copy.png")]
    assert images == [(built / "plots" / name).read_bytes() for name in shown]


def test_the_page_and_the_summary_open_on_the_answer(built):
    """Issue 56 finding 1: the page's first table started 40% down the screen, after eight lines of
    definitions. Now the headline figure and the main table come first, the definitions folded."""
    source = page_of(built)
    headline, table, how_to_read = (source.index(mark) for mark in ('<div id="headline">', '<table id="leaderboard"',
                                                                      '<details id="how-to-read">'))
    assert headline < table < how_to_read and source.index("<b>eff. length</b>") > how_to_read
    summary = (built / "summary.md").read_text()
    assert summary.index("![phonebook_copy.png]") < summary.index("\n## ") < summary.index("## How to read")
    assert summary.index("Cells: effective length") > summary.index("## How to read")


def test_the_page_is_rewritten_with_the_csv(built, tmp_path):
    out = tmp_path / "out"
    write_results(tmp_path / "in", "first", random_copy([1.0]))
    build_leaderboard([tmp_path / "in"], out)
    write_results(tmp_path / "in2", "second", random_copy([1.0]), date="2026-11-02T10:00:00")
    build_leaderboard([tmp_path / "in2"], out)
    assert Page(page_of(out)).order == ["first", "second"]  # the merged rows, as the summary


# ---- in a browser --------------------------------------------------------------------------
def chromium(out: Path, profile: Path, *arguments: str, fragment: str = "") -> subprocess.CompletedProcess:
    """Headless Chromium on `out/index.html` (its own profile: other browsers may be running)."""
    url = (out / "index.html").resolve().as_uri() + fragment
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
               "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *arguments, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=dict(os.environ, LANG="C"))


def console_messages(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


def clicked(out: Path, profile: Path, *headers: str) -> list[dict]:
    """What the page reports after each of its headers was clicked, in turn, in one page load:
    rows' order, `aria-sort`, ranges (and it checks that the main table fits 1,400 px and no
    header's text overruns its cell)."""
    result = chromium(out, profile, "--dump-dom", "--window-size=1400,900", fragment="#test-click=" + ",".join(headers))
    assert result.returncode == 0, result.stderr[-2000:]
    page = Page(result.stdout)
    assert console_messages(result) == [] and "data-page-errors" not in page.root
    found = json.loads(page.by_id["test-result"])
    assert found.pop("window_width") == 1400 and found.pop("table_width") <= 1400  # the main table fits
    assert found.pop("clipped") == []  # every header's text within its cell (a family's name once overran it)
    assert list(found) == ["clicks"] and len(found["clicks"]) == len(headers)
    return found["clicks"]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_clicking_a_header_sorts_the_rows_in_chromium(built, tmp_path):
    hostile, chat = HOSTILE_SHOWN, "alpha [chat_template]"
    # ours, effective length: beta 50 and alpha 20 over 10-50, delta <10 (as 0) over 10-20, alpha in
    # its chat setting 10 over 10 alone: scores over other lengths are never interleaved, the widest
    # range first, and only the order within a range reverses; gamma and the hostile name have no
    # random_copy: last, in the table's first order
    # (one page load, each click noted)
    profile = tmp_path / "profile"
    once, twice, names_a_to_z, names = clicked(built, profile, OURS, OURS, "col-model", "col-model")
    ranges = ["10-50", "10-50", "10-20", "10-10", "", ""]
    assert once == {"order": ["beta", "alpha", "delta", chat, hostile, "gamma"], "sorted": {OURS: "descending"},
                    "new_range": ["delta", chat], "ranges": ranges}
    assert twice == {"order": ["alpha", "beta", "delta", chat, hostile, "gamma"], "sorted": {OURS: "ascending"},
                     "new_range": ["delta", chat], "ranges": ranges}
    # a text column: A to Z, then Z to A; the two alpha rows tie and keep their order; the
    # column sorted by before no longer says so
    assert names_a_to_z["sorted"] == {"col-model": "ascending"}
    assert names == {"order": ["gamma", "delta", "beta", "alpha", chat, hostile], "sorted": {"col-model": "descending"},
                     "new_range": [], "ranges": [""] * 6}

    screenshot = tmp_path / "page.png"
    result = chromium(built, profile, f"--screenshot={screenshot}", "--window-size=1200,800")
    assert result.returncode == 0 and console_messages(result) == []
    png = screenshot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and struct.unpack(">II", png[16:24]) == (1200, 800)
    untouched = chromium(built, profile, "--dump-dom")
    assert "<title>copy-tasks leaderboard</title>" in untouched.stdout  # the name's script never ran
    assert Page(untouched.stdout).by_id["test-result"] == ""


def budgets_built(root: Path) -> Path:
    for index, bits in enumerate((1024, 128, 4096, 512, 64)):
        write_results(root / "in" / str(bits), f"bounded_state(bits={bits})", random_copy([1.0, 1.0, 1.0]),
                      date=f"2026-11-0{index + 1}T10:00:00")
    build_leaderboard([root / "in"], root / "out")
    return root / "out"


BUDGETS_IN_ORDER = [f"bounded_state(bits={bits})" for bits in (64, 128, 512, 1024, 4096)]


def test_budgets_are_rows_in_the_order_of_their_bits(tmp_path):
    """Issue 56 finding 5: the page sorted budgets as text (bits=1024, 128, 4096, 512, 64)."""
    assert Page(page_of(budgets_built(tmp_path))).order == BUDGETS_IN_ORDER


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_clicking_the_model_header_sorts_budgets_by_their_bits_in_chromium(tmp_path):
    a_to_z, z_to_a = clicked(budgets_built(tmp_path), tmp_path / "profile", "col-model", "col-model")
    assert a_to_z["order"] == BUDGETS_IN_ORDER and z_to_a["order"] == BUDGETS_IN_ORDER[::-1]


def test_the_per_length_tables_are_on_the_page_for_every_family_worked_by_hand(built):
    page = page_of(built)
    per_length = page.split('<h2 id="per-length">Per length</h2>')[1].split("<h2>")[0]
    ours = per_length.split("Generation, our rule")[1].split("<h3>")[0]
    for family in ("phonebook_copy", "random_copy", "lookup_prefix"):
        assert f"<h4>{family} (" in ours
    rows = {tuple(cells[:2]): cells[2:] for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row)
                                             for row in re.findall(r"<tr>(.*?)</tr>", ours.split("<h4>random_copy")[1]
                                                                   .split("<h4>")[0]))}
    # alpha: 1.0, 1.0, 0.2 at 10, 20, 50: mean 0.73; delta 0.2, 0.0 at 10, 20: mean 0.10 over 10-20
    assert rows[("alpha", "-")] == ["1.00", "1.00", "0.20", "0.73"]
    assert rows[("alpha", "chat_template")] == ["1.00", "-", "-", "1.00 (10)"]
    assert rows[("delta", "-")] == ["0.20", "0.00", "-", "0.10 (10-20)"]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_the_published_page_in_chromium_fits_1400_px_and_never_interleaves_ranges(tmp_path):
    """The published page: a per-length table for every family, the main table within a 1,400 px
    window (clicked() checks it), no console error, and a sort by every effective-length column
    that keeps each range of lengths in one block (read from the cells' ranges; every column
    clicked in one page load: a column's first click sorts it as on a fresh page, since rows that
    tie keep the table's first order, not the last sort's)."""
    published = Path(__file__).resolve().parents[2] / "leaderboard"
    page = page_of(published)
    families = sorted(set(re.findall(r'id="col-([a-z0-9_]+?)-(?:generation|teacher_forced)-', page)))
    per_length = page.split('<h2 id="per-length">')[1]
    assert families and all(f"<h4>{family} (" in per_length for family in families)
    headers = sorted(set(re.findall(r'id="(col-[a-z0-9_]+-(?:generation|teacher_forced)-[a-z_]+-effective)"', page)))
    assert headers
    for header, shown in zip(headers, clicked(published, tmp_path / "profile", *headers)):
        assert shown["sorted"] == {header: "descending"}
        ranges = [value for value in shown["ranges"] if value]
        blocks = [value for index, value in enumerate(ranges) if index == 0 or ranges[index - 1] != value]
        assert len(blocks) == len(set(blocks)), (header, ranges)  # each range one block: never interleaved
