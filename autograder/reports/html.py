"""The shell of the HTML pages: one self-contained document (inline CSS and script, no network)."""

from __future__ import annotations

from autograder.reports import output_paths, untrusted

#: Every colour once, for the light scheme and the dark one (each text colour at least 4.5:1 on
#: the backgrounds it is used on: WCAG 2.1 AA, checked by tests/reports/test_accessibility.py with axe-core).
COLOURS = """
:root { color-scheme: light dark; --fg: #1f1f1f; --bg: #fff; --muted: #595959; --border: #c8c8c8;
        --th: #f0f0f0; --code: #f4f6f8; --mark: #fff1b8; --pass: #1a6b2d; --fail: #a8231b;
        --badge: #ececec; --badge-pass: #e3f4e7; --badge-fail: #fde7e6; --warn: #b07d00; --warn-bg: #fff8e1;
        --link: #0b57d0; --visited: #6a1b9a; --focus: #0b57d0; --region: #7a4f00; --bar: #3b6aa8;
        --plot: #fafafa; --axis: #595959; --dot: #b03a2e; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e8e8; --bg: #161616; --muted: #b0b0b0; --border: #4a4a4a; --th: #262626; --code: #1f2328;
          --mark: #4d3d00; --pass: #6fd08a; --fail: #ff8a80; --badge: #333; --badge-pass: #1c3a24;
          --badge-fail: #4a1f1c; --warn: #e0b020; --warn-bg: #332a10; --link: #8ab4f8; --visited: #d7aefb;
          --focus: #8ab4f8; --region: #ffcc66; --bar: #6e9fdc; --plot: #1f1f1f; --axis: #b0b0b0; --dot: #ff7b6e; }
}
"""

CSS = (
    COLOURS
    + """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1100px;
       padding: 0 1em; color: var(--fg); background: var(--bg); }
a { color: var(--link); } a:visited { color: var(--visited); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
h1 { font-size: 1.6em; overflow-wrap: anywhere; } h2 { margin-top: 1.8em; border-bottom: 1px solid var(--border); }
h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid var(--border); padding: .25em .55em; text-align: left; vertical-align: top; }
th { background: var(--th); }
th.sortable button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer;
                     text-align: inherit; }
th.sortable button::after { content: " \\2195" / ""; }
th[aria-sort="ascending"] button::after { content: " \\25B2" / ""; }
th[aria-sort="descending"] button::after { content: " \\25BC" / ""; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } td.num { white-space: nowrap; }
.wide { max-width: 100%; overflow-x: auto; margin: .5em 0 1em; } .wide > table { margin: 0; }
.pass { color: var(--pass); } .fail { color: var(--fail); } .muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .5em; border-radius: .8em; background: var(--badge); font-size: .85em; }
.badge.fail { background: var(--badge-fail); } .badge.pass { background: var(--badge-pass); }
.diagnosis { border-left: 4px solid var(--warn); background: var(--warn-bg); padding: .5em .8em; margin: .5em 0; }
.banner { border-left: 4px solid var(--fail); background: var(--badge-fail); padding: .5em .8em; margin: .5em 0; }
details > summary { cursor: pointer; } td details { margin: 0; } .back { margin: 0; font-size: .9em; }
.who p { margin: .2em 0; } .who a, .nowrap { white-space: nowrap; } #cases td:last-child { min-width: 16em; }
pre { background: var(--code); padding: .6em; white-space: pre-wrap; overflow-wrap: break-word; }
code { background: var(--code); padding: 0 .2em; overflow-wrap: break-word; }
.facts td:first-child { color: var(--muted); }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: .6em; }
.side > div { min-width: 0; }
pre.code { white-space: pre; overflow-wrap: normal; overflow-x: auto; font-size: 12px; line-height: 1.35; }
pre.code mark { background: var(--mark); color: var(--fg); } .ln { color: var(--muted); user-select: none; }
.region { color: var(--region); font-weight: bold; margin-left: .4em; }
.fold { color: var(--muted); font-style: italic; }
.pair { border-top: 1px solid var(--border); margin-top: 1.2em; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
svg.chart text { fill: var(--fg); } svg.chart .frame { fill: var(--plot); stroke: var(--axis); }
svg.chart .axis { stroke: var(--axis); } svg.chart .bar { fill: var(--bar); } svg.chart .dot { fill: var(--dot); }
.filter { margin: 1em 0; } .filter input { font: inherit; padding: .2em .4em; margin: 0 .5em; width: 18em;
          max-width: 90%; color: var(--fg); background: var(--bg); border: 1px solid var(--muted); }
ul.plain { margin: 0; padding-left: 1.1em; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
                   white-space: nowrap; }
@media (max-width: 700px) { .side { grid-template-columns: 1fr; } body { margin-top: 1em; } }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation: none !important; transition: none !important; scroll-behavior: auto !important; }
}
@media print {
  :root { --fg: #000; --bg: #fff; --muted: #404040; --border: #999; --th: #eee; --code: #fff; --link: #000;
          --visited: #000; --pass: #000; --fail: #000; }
  body { font-size: 10.5pt; max-width: none; margin: 0; }
  .back, th.sortable button::after { display: none; }
  .wide, pre.code { overflow: visible; } pre, pre.code { white-space: pre-wrap; border: 1px solid var(--border); }
  tr, .diagnosis, .banner, figure, h3 { break-inside: avoid; } h2, h3 { break-after: avoid; }
  details > summary { list-style: none; }
}
"""
)

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  var headers = table.querySelectorAll("th.sortable");
  headers.forEach(function (header) {
    header.addEventListener("click", function () {
      var column = header.cellIndex, body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value") || a.cells[column].textContent;
        var y = b.cells[column].getAttribute("data-value") || b.cells[column].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
      headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    });
  });
});
"""

#: A filter box (``filter_box``) hides the rows of its tables that do not hold what is typed, and
#: says how many of the first table's rows (``data-noun``) are shown.
FILTER_SCRIPT = """
document.querySelectorAll("input[data-filter]").forEach(function (box) {
  var tables = box.getAttribute("data-filter").split(" ").map(function (id) {
    return document.getElementById(id);
  }).filter(Boolean);
  var status = document.getElementById(box.id + "-status");
  box.addEventListener("input", function () {
    var words = box.value.trim().toLowerCase(), shown = 0, total = 0;
    tables.forEach(function (table, index) {
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var match = !words || row.textContent.toLowerCase().indexOf(words) >= 0;
        row.hidden = !match;
        if (index === 0) { total += 1; shown += match ? 1 : 0; }
      });
    });
    status.textContent = words ? shown + " of " + total + " " + box.getAttribute("data-noun") + " shown" : "";
  });
});
"""

#: On paper every folded part is shown (and folded again afterwards).
PRINT_SCRIPT = """
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details:not([open])").forEach(function (d) {
    d.setAttribute("data-printed", ""); d.open = true;
  });
});
window.addEventListener("afterprint", function () {
  document.querySelectorAll("details[data-printed]").forEach(function (d) {
    d.removeAttribute("data-printed"); d.open = false;
  });
});
"""


def esc(value: object) -> str:
    """Text or an attribute's value in HTML: ``untrusted.html``."""
    return untrusted.html(value)


def feedback_link(submission: str, text: str | None = None) -> str:
    """A link from the class report to a submission's feedback page."""
    return f'<a href="{output_paths.link(submission)}">{esc(text or submission)}</a>'


def sortable(label: str, numeric: bool = False) -> str:
    """A column heading that sorts its table (``SORT_SCRIPT``): a button, so a keyboard reaches and
    presses it; ``aria-sort`` says how the table is sorted."""
    return f'<th class="sortable{" num" if numeric else ""}"><button type="button">{label}</button></th>'


def filter_box(tables: str, label: str, noun: str = "students", name: str = "filter") -> str:
    """A search box that filters the rows of the tables whose ids ``tables`` lists (``FILTER_SCRIPT``),
    labelled for every reader, with a live status saying how many of the first table's ``noun`` are shown."""
    return (
        f'<div class="filter" role="search"><label for="{name}">{esc(label)}</label>'
        f'<input type="search" id="{name}" data-filter="{esc(tables)}" data-noun="{esc(noun)}" autocomplete="off">'
        f'<span id="{name}-status" role="status" aria-live="polite"></span></div>'
    )


def wide(table: str, label: str) -> str:
    """A table that may be wider than a phone, in a box of its own that scrolls sideways (reached
    and scrolled by keyboard too), so the page never does."""
    return f'<div class="wide" role="region" aria-label="{esc(label)}" tabindex="0">{table}</div>'


def mark(passed: bool) -> str:
    """✓ or ✗, with its meaning for a screen reader."""
    symbol, word = ("✓", "passed") if passed else ("✗", "failed")
    return f'<span class="{"pass" if passed else "fail"}" role="img" aria-label="{word}">{symbol}</span>'


def page(title: str, body: str, script: str = "") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="color-scheme" content="light dark">\n<title>{esc(title)}</title>\n'
        f'<link rel="icon" href="data:,">\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n'
        f"<script>{PRINT_SCRIPT}{script}</script>\n"
        "</body>\n</html>\n"
    )
