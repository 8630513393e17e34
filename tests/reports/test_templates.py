"""The pages' templates (``autograder/reports/templates/``, laid out by ``reports/html.py``): every
value a template shows is untrusted text made safe by ``untrusted.html`` (the one rule for text in
HTML), HTML the grader built is shown as it is, a page is one file with its stylesheet and scripts
inside, the macros write the pieces the pages had, and the templates ship wherever the grader
does (the package's data, autograder.zip, the PrairieLearn image's source).
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import jinja2
import pytest
from markupsafe import Markup

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import shipment
from autograder.reports import html, similarity_html
from autograder.similarity import compare
from autograder.similarity.compare import SimilaritySettings

#: id: (a value a template shows, what the page holds)
SHOWN = {
    "tag": ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    "double quote (html.escape's entity)": ('" onmouseover="x', "&quot; onmouseover=&quot;x"),
    "single quote (html.escape's entity)": ("O'Neil", "O&#x27;Neil"),
    "ampersand": ("R&D", "R&amp;D"),
    "terminal escape": ("Bob\x1b[2J", "Bob\\x1b[2J"),
    "bidi override": ("Ann\u202egnp.exe", "Ann\\u202egnp.exe"),
    "zero-width space": ("a\u200bb", "a\\u200bb"),
    "newline and tab kept": ("a\n\tb", "a\n\tb"),
    "a number": (3, "3"),
    "None": (None, "None"),
}


@pytest.mark.parametrize(("value", "shown"), list(SHOWN.values()), ids=list(SHOWN))
def test_what_does_a_template_show_of_a_value(value, shown):
    """Is every value shown as untrusted text: escaped as ``html.escape`` does, control and
    invisible characters as escapes, in text and in an attribute alike?"""
    template = html.environment().from_string('<p title="{{ value }}">{{ value }}</p>')
    assert template.render(value=value) == f'<p title="{shown}">{shown}</p>'


#: id: HTML the grader built, shown as it is
BUILT = {
    "a tag": "<b>bold</b>",
    "an entity": "&lt;kept&gt;",
    "an svg": '<svg class="chart"><text x="1">0.5</text></svg>',
}


@pytest.mark.parametrize("built", list(BUILT.values()), ids=list(BUILT))
def test_is_html_the_grader_built_shown_as_it_is(built):
    """Does Markup (HTML already built, escaped where it held text) pass unchanged, not escaped
    twice?"""
    assert html.environment().from_string("{{ value }}").render(value=Markup(built)) == built


#: id: the scripts a page asks for beside print.js
SCRIPTS = {
    "none": (),
    "filter": ("filter.js",),
    "sort and filter": ("sort.js", "filter.js"),
}


@pytest.mark.parametrize("scripts", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_is_a_page_one_file_with_its_stylesheet_and_scripts(scripts):
    """Does a page hold the stylesheet and each script it asks for (print.js first), in order,
    and fetch nothing: no stylesheet link, no script source?"""
    page = html.page("A <title>", "<p>body</p>", scripts)
    assert f"<style>\n{html.static('page.css')}</style>" in page
    inline = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert inline == ["".join("\n" + html.static(name) for name in ("print.js", *scripts))]
    assert re.findall(r"<link rel=\"stylesheet\"|<script src=|@import", page) == []
    assert "<title>A &lt;title&gt;</title>" in page
    assert "<main>\n<p>body</p>\n</main>" in page


def test_what_does_asking_for_a_script_that_is_not_there_say():
    """Does a page that names a script no file holds fail with the name and the files there are?"""
    with pytest.raises(ValueError, match=r"html.static: no file 'sorting.js' in .*expected one of .*sort\.js"):
        html.page("title", "body", ("sorting.js",))


def test_what_does_a_template_given_too_little_say():
    """Is a value a template needs and was not given an error naming it, never an empty part?"""
    with pytest.raises(jinja2.UndefinedError, match="'found' is undefined"):
        html.render("feedback.html.j2", {"report": "", "lab_name": "Lab"})


#: id: (macro call, the HTML it writes)
MACROS = {
    "passed": (lambda: html.macros().mark(True), '<span class="pass" role="img" aria-label="passed">✓</span>'),
    "failed": (lambda: html.macros().mark(False), '<span class="fail" role="img" aria-label="failed">✗</span>'),
    "wide table, hostile label": (
        lambda: html.macros().wide(Markup("<table></table>"), 'a"b'),
        '<div class="wide" role="region" aria-label="a&quot;b" tabindex="0"><table></table></div>',
    ),
    "filter box": (
        lambda: html.macros().filter_box("t1 t2", "Filter <them>", "cases", "f"),
        '<div class="filter" role="search"><label for="f">Filter &lt;them&gt;</label>'
        '<input type="search" id="f" data-filter="t1 t2" data-noun="cases" autocomplete="off">'
        '<span id="f-status" role="status" aria-live="polite"></span></div>',
    ),
    "feedback link": (
        lambda: html.macros().feedback_link("submissions/a%26b/feedback.html", "a&b"),
        '<a href="submissions/a%26b/feedback.html">a&amp;b</a>',
    ),
    "sortable number column": (
        lambda: html.macros().sortable("total", True),
        '<th class="sortable num"><button type="button">total</button></th>',
    ),
    "sortable text column, hostile label": (
        lambda: html.macros().sortable("<q1>"),
        '<th class="sortable"><button type="button">&lt;q1&gt;</button></th>',
    ),
    "pre of blank text": (lambda: html.macros().pre(" \n "), ""),
    "pre of code": (lambda: html.macros().pre("if a < b:\n    x"), "<pre>if a &lt; b:\n    x</pre>"),
}


@pytest.mark.parametrize(("call", "written"), list(MACROS.values()), ids=list(MACROS))
def test_what_does_each_macro_write(call, written):
    """Do the macros every page uses write the HTML the pages had, text escaped?"""
    assert call() == written


def _templates() -> list[str]:
    folder = paths.PACKAGE / "reports"
    return sorted(path.relative_to(folder).as_posix() for path in (folder / "templates").rglob("*") if path.is_file())


def test_are_there_templates_to_ship():
    """Are the page, its parts, the stylesheet and the scripts all files of templates/?"""
    expected = {"page.html.j2", "feedback.html.j2", "static/page.css", "static/sort.js", "static/filter.js"}
    assert {name.removeprefix("templates/") for name in _templates()} >= expected


@pytest.mark.parametrize("name", _templates())
def test_does_every_template_ship(name):
    """Is every file of templates/ in the package's data (pyproject.toml) and in the engine that
    autograder.zip and the PrairieLearn image carry?"""
    pyproject = (paths.ROOT / "pyproject.toml").read_text(encoding="utf-8")
    line = re.search(r'^"autograder\.reports" = (\[.*\])$', pyproject, re.M)  # tomllib: Python 3.11 on
    assert line, "pyproject.toml's [tool.setuptools.package-data] has no line for autograder.reports"
    assert any(fnmatch.fnmatch(name, pattern) for pattern in json.loads(line[1]))
    assert f"autograder/reports/{name}" in {entry[0] for entry in shipment.engine_entries(lab=default_lab())}


#: id: (two submissions sharing tests/similarity/loop-style's metrics.py, the labels of the code
#: regions of their side-by-side view)
COPIES = {
    "one copy": (("a", "b"), ["a/metrics.py", "b/metrics.py"]),
    "names to escape": (("<a>", "b&c"), ["&lt;a&gt;/metrics.py", "b&amp;c/metrics.py"]),
}


@pytest.mark.parametrize(("names", "labels"), list(COPIES.values()), ids=list(COPIES))
def test_is_each_side_of_a_similar_pair_labelled_with_its_file(names, labels):
    """Does each scrolling code region of a side-by-side view name the submission's file for a
    screen reader (it was empty: a loop variable took the label's name)?"""
    code = (Path(__file__).parents[1] / "fixtures" / "similarity" / "loop-style" / "metrics.py").read_text(
        encoding="utf-8"
    )
    found = compare.analyse({name: {"metrics.py": code} for name in names}, lab=default_lab())
    shown = similarity_html.section(found, SimilaritySettings(), {})
    assert re.findall(r'<pre class="code" role="region" aria-label="([^"]*)"', shown) == labels


#: id: (what the cache folder is, does a later environment compile the templates again)
KEPT = {
    "a-private-cache-folder": ("folder", False),
    "a-file-where-the-folder-should-be": ("file", True),
}


@pytest.mark.parametrize("cache_kind, again", list(KEPT.values()), ids=list(KEPT))
def test_templates_are_compiled_once_then_read_from_the_cache(cache_kind, again, tmp_path, monkeypatch):
    """Does the first environment compile the templates it renders and keep their code in the
    cache, so that a later one (another run) compiles none, and does a cache that cannot be written
    cost only the compiling, the pages alike?"""
    cache = tmp_path / "cache"
    if cache_kind == "file":
        cache.write_text("not a folder")
    monkeypatch.setenv("AUTOGRADER_CACHE", str(cache))
    compiled: list = []
    original = jinja2.Environment.compile

    def counted(self, source, name=None, *args, **kwargs):
        compiled.append(name)
        return original(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    pages, counts = [], []
    for _ in range(2):
        html.environment.cache_clear()
        before = len(compiled)
        pages.append(html.page("a title", "<p>body</p>", ["sort.js"]))
        counts.append(len(compiled) - before)
    html.environment.cache_clear()
    assert pages[0] == pages[1] and "<p>body</p>" in pages[0]
    assert counts[0] >= 1
    assert counts[1] == (counts[0] if again else 0)
