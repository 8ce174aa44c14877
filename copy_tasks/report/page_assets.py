"""The style and scripts `index.html` carries inline (no file, no network): see `html_page`.

`ERRORS_SCRIPT` runs first, in the head: every error the page meets (an exception, a resource
that failed, a rejected promise, a blocked content-security rule) is added to the JSON list in
the `data-page-errors` attribute of `<html>`, where a headless browser's dump of the DOM shows it.

`SORT_SCRIPT` sorts the table by the column whose header is clicked: numbers (`data-type=
"number"`) by value, highest first, text in alphabetical order (a number in it by value:
bits=64 before bits=128); clicking the same header again
reverses; cells with no value (`data-value=""`) stay last either way, and rows that tie keep
the table's first order. A score is only compared with scores over the same lengths (the
cell's `data-range`): a numeric sort groups rows by range, widest first, sorts within each
group, and marks where a group starts (a rule above the row, class `new-range`). The header
sorted by says so in its `aria-sort`. For the browser test,
`index.html#test-click=ID,ID` clicks the buttons of those headers in turn once the page has
loaded, and after each click notes the rows' order (`data-entry`), the headers' `aria-sort`,
the rows that start a range (`new_range`) and the sorted column's ranges (`ranges`); it writes
these notes (`clicks`, one a click), the table's and the window's widths and the headers whose
text overruns their cell (`clipped`) as JSON into `<pre id="test-result">`: one page load checks
any number of sorts.
"""

from __future__ import annotations

ERRORS_SCRIPT = """
(function () {
  "use strict";
  var seen = [];
  function note(text) {
    seen.push(String(text).slice(0, 300));
    document.documentElement.setAttribute("data-page-errors", JSON.stringify(seen));
  }
  window.addEventListener("error", function (event) {
    if (event instanceof ErrorEvent) {
      note(event.message + " (line " + event.lineno + ")");
    } else {
      var target = event.target || {};
      note("could not load <" + (target.tagName || "?") + "> " + (target.src || target.href || ""));
    }
  }, true);
  window.addEventListener("unhandledrejection", function (event) { note("rejected: " + event.reason); });
  document.addEventListener("securitypolicyviolation", function (event) {
    note("blocked by the page's content security policy: " + event.violatedDirective + " " + event.blockedURI);
  });
})();
"""

SORT_SCRIPT = """
(function () {
  "use strict";
  var table = document.getElementById("leaderboard");
  var body = table.tBodies[0];
  var headers = Array.prototype.slice.call(table.querySelectorAll("th[data-column]"));

  function value(row, column) {
    return row.cells[column].getAttribute("data-value");
  }

  // The lengths a score cell was computed over ("10-200"): rows of other ranges are not
  // comparable, so they are never interleaved; ranges go widest (longest, then shortest start) first.
  function range(row, column) {
    return row.cells[column].getAttribute("data-range") || "";
  }

  function rangeOrder(p, q) {
    var a = p.split("-").map(Number), b = q.split("-").map(Number);  // always "first-last"
    return (b[1] - a[1]) || (a[0] - b[0]) || p.localeCompare(q);
  }

  function markRanges(rows, column) {
    rows.forEach(function (row, index) {
      var starts = column >= 0 && index > 0 && value(row, column) !== "" &&
        range(row, column) !== range(rows[index - 1], column);
      row.classList.toggle("new-range", starts);
    });
  }

  function sortBy(header) {
    var column = Number(header.getAttribute("data-column"));
    var numeric = header.getAttribute("data-type") === "number";
    var now = header.getAttribute("aria-sort");
    var direction = now ? (now === "ascending" ? "descending" : "ascending") : (numeric ? "descending" : "ascending");
    var sign = direction === "ascending" ? 1 : -1;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, column), y = value(b, column);
      if (x === "" || y === "") {
        if (x !== y) { return x === "" ? 1 : -1; }
      } else if (range(a, column) !== range(b, column)) {
        return rangeOrder(range(a, column), range(b, column));
      } else {
        var order = numeric ? Number(x) - Number(y) : x.localeCompare(y, undefined, {numeric: true});
        if (order !== 0) { return sign * order; }
      }
      return Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index"));
    });
    rows.forEach(function (row) { body.appendChild(row); });
    markRanges(rows, numeric ? column : -1);
    headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", direction);
  }

  headers.forEach(function (header) {
    header.addEventListener("click", function () { sortBy(header); });
  });

  // What the rows and headers show now (the browser test's note after each click).
  function shown() {
    var sorted = {}, ranges = [];
    headers.forEach(function (header) {
      if (header.hasAttribute("aria-sort")) {
        sorted[header.id] = header.getAttribute("aria-sort");
        var column = Number(header.getAttribute("data-column"));
        ranges = Array.prototype.map.call(body.rows, function (row) { return range(row, column); });
      }
    });
    return {
      order: Array.prototype.map.call(body.rows, function (row) { return row.getAttribute("data-entry"); }),
      sorted: sorted,
      ranges: ranges,
      new_range: Array.prototype.filter.call(body.rows, function (row) { return row.classList.contains("new-range"); })
        .map(function (row) { return row.getAttribute("data-entry"); })
    };
  }

  var asked = /^#test-click=(.*)$/.exec(window.location.hash);
  if (asked) {
    var clicks = asked[1].split(",").map(function (id) {
      document.getElementById(decodeURIComponent(id)).querySelector("button").click();
      return shown();
    });
    document.getElementById("test-result").textContent = JSON.stringify({
      clicks: clicks,
      table_width: Math.round(table.getBoundingClientRect().width),
      window_width: window.innerWidth,
      clipped: Array.prototype.filter.call(table.tHead.querySelectorAll("th"), function (cell) {
        return cell.offsetWidth > 0
          && (cell.scrollWidth > cell.clientWidth + 1 || cell.scrollHeight > cell.clientHeight + 1);
      }).map(function (cell) { return cell.textContent; })
    });
  }
})();
"""

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.5em; margin: 0 0 0.3em; }
h2 { font-size: 1.15em; margin: 1.6em 0 0.5em; }
.legend { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; margin: 0.8em 0; }
.legend dt { font-weight: 600; }
.legend dd { margin: 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d4d4d4; padding: 0.2em 0.15em; }
thead th { background: #f2f2f2; vertical-align: bottom; }
thead th.family { background: #e4e9f2; }
th.generation-authors_exact_match { background: #f7ecd9; }
th.generation-exact_match { background: #e2f0e2; }
th.teacher_forced-exact_match { background: #ece3f3; }
th button { font: inherit; font-weight: 600; border: 0; background: none; padding: 0; cursor: pointer; }
tr.new-range td { border-top: 3px double #888; }
.rules > label { margin-right: 1em; cursor: pointer; }
.rules > .choose { font-weight: 600; }
thead th.family { overflow-wrap: anywhere; }
#show-generation-authors_exact_match:checked ~ .scroll col.rule-generation-exact_match,
#show-generation-authors_exact_match:checked ~ .scroll col.rule-teacher_forced-exact_match,
#show-generation-exact_match:checked ~ .scroll col.rule-generation-authors_exact_match,
#show-generation-exact_match:checked ~ .scroll col.rule-teacher_forced-exact_match,
#show-teacher_forced-exact_match:checked ~ .scroll col.rule-generation-authors_exact_match,
#show-teacher_forced-exact_match:checked ~ .scroll col.rule-generation-exact_match { visibility: collapse; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
td.number { text-align: right; white-space: nowrap; }
td.start, th.start { border-left: 2px solid #8a8a8a; }
td.blank { color: #999; text-align: center; }
.lengths, .note { display: block; font-size: 10px; color: #555; }
.note { color: #8a3b00; white-space: normal; min-width: 6em; }
tbody td:first-child, thead tr:first-child th:first-child { position: sticky; left: 0; z-index: 1; background: #fff; }
tbody tr:nth-child(even) { background: #fafafa; }
tbody tr:hover { background: #fff6d5; }
figure { display: inline-block; margin: 0 1em 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
#headline { display: flex; gap: 1em; align-items: flex-start; }
#headline figure { margin: 0 0 0.5em 0; min-width: 0; }
#headline img { max-height: 260px; width: auto; }
figcaption { font-size: 12px; color: #555; }
code { font-size: 0.95em; }
#test-result:empty { display: none; }
"""
