"""The shell of the HTML pages: one self-contained document (inline CSS and script, no network)."""

from __future__ import annotations

from html import escape

from autograder.reports import layout

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1100px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ddd; padding: .25em .55em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } th.sortable { cursor: pointer; } th.sortable:after { content: " \\2195"; color: #999; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pass { color: #1e7b34; } .fail { color: #b3261e; } .muted { color: #666; }
.badge { display: inline-block; padding: 0 .5em; border-radius: .8em; background: #eee; font-size: .85em; }
.badge.fail { background: #fde7e6; } .badge.pass { background: #e3f4e7; }
.diagnosis { border-left: 4px solid #e6a700; background: #fff8e1; padding: .5em .8em; margin: .5em 0; }
.banner { border-left: 4px solid #b3261e; background: #fde7e6; padding: .5em .8em; margin: .5em 0; }
details > summary { cursor: pointer; } td details { margin: 0; } .back { margin: 0; font-size: .9em; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; }
code { background: #f6f8fa; padding: 0 .2em; }
.facts td:first-child { color: #555; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: .6em; }
.side > div { min-width: 0; }
pre.code { white-space: pre; font-size: 12px; line-height: 1.35; }
pre.code mark { background: #fff1b8; } .ln { color: #999; user-select: none; }
.region { color: #8a5a00; font-weight: bold; margin-left: .4em; } .fold { color: #888; font-style: italic; }
.pair { border-top: 1px solid #eee; margin-top: 1.2em; }
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th.sortable").forEach(function (header, column) {
    header.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var ascending = header.getAttribute("data-order") !== "asc";
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value") || a.cells[column].textContent;
        var y = b.cells[column].getAttribute("data-value") || b.cells[column].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
      header.setAttribute("data-order", ascending ? "asc" : "desc");
    });
  });
});
"""


def esc(value) -> str:
    return escape(str(value), quote=True)


def feedback_link(submission: str, text: str | None = None) -> str:
    """A link from the class report to a submission's feedback page."""
    return f'<a href="{layout.link(submission)}">{esc(text or submission)}</a>'


def page(title: str, body: str, script: str = "") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{esc(title)}</title>\n'
        f'<link rel="icon" href="data:,">\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n'
        + (f"<script>{script}</script>\n" if script else "")
        + "</body>\n</html>\n"
    )
