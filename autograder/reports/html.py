"""The shell of the HTML pages: one self-contained document (inline CSS and script, no network).

Pages are laid out by Jinja2 templates (``templates/*.j2``, autoescaped) with the stylesheet
and the scripts as files (``templates/static/``) embedded into each page when it is rendered, so a
page stays a single file (a student gets feedback.html alone).

Every value a template shows goes through ``untrusted.html`` (the environment's ``finalize``),
the one rule for text in HTML; what is already HTML is ``Markup``. Python computes the values;
the templates only lay them out.

The stylesheet (``static/page.css``) gives every colour once, for the light scheme and the dark
one (each text colour at least 4.5:1 on the backgrounds it is used on: WCAG 2.1 AA, checked by
tests/reports/test_accessibility.py with axe-core). ``sort.js`` sorts a table by the column whose
heading (the ``sortable`` macro) is pressed; ``filter.js`` makes a filter box (``filter_box``) hide the
rows of its tables that do not hold what is typed and say how many of the first table's rows
(``data-noun``) are shown; ``print.js`` shows every folded part on paper (and folds it again
afterwards).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from autograder import cache
from autograder.reports import untrusted

#: The templates and, under ``static/``, the stylesheet and scripts they embed.
TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = TEMPLATES / "static"


@functools.cache
def static(name: str) -> Markup:
    """The stylesheet or script ``static/<name>``, as it is embedded into a page (the grader's own
    text, never escaped)."""
    known = sorted(path.name for path in STATIC.iterdir())
    if name not in known:
        raise ValueError(f"html.static: no file {name!r} in {STATIC}; expected one of {', '.join(known)}")
    return Markup((STATIC / name).read_text(encoding="utf-8"))


def _finalize(value: object) -> object:
    """What a template shows of ``value``: HTML (``Markup``) as it is, anything else as text made
    safe by ``untrusted.html``."""
    return value if isinstance(value, Markup) else Markup(untrusted.html(value))


class _Compiled(jinja2.BytecodeCache):
    """Where the templates' compiled code is kept between runs: the grader's private cache folder
    (``templates/``; Jinja2 compiles a template again when its source changed), so a run does not
    compile every template afresh (about 0.3 s of CPU). A folder that cannot be read or written
    costs only the compiling."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(cache.cache_dir() / "templates" / f"{bucket.key}.cache", "rb") as stored:
                bucket.load_bytecode(stored)
        except OSError:
            pass

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        compiled = io.BytesIO()
        bucket.write_bytecode(compiled)
        try:
            cache.write_atomic(cache.cache_dir() / "templates" / f"{bucket.key}.cache", compiled.getvalue())
        except OSError:
            pass


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment: autoescaped, every value through ``untrusted.html``, a missing
    value an error, the templates' own newlines kept as written, each template read once and its
    compiled code kept in the cache (``_Compiled``)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,
        bytecode_cache=_Compiled(),
    )
    env.globals["static"] = static
    return env


def macros() -> Any:
    """The macros of ``templates/macros.html.j2`` (``mark``, ``wide``, ``pre``, ``filter_box``,
    ``feedback_link``, ``sortable``) as functions that return HTML (``Markup``)."""
    return environment().get_template("macros.html.j2").module


def render(template: str, values: Mapping[str, object]) -> str:
    """The template ``templates/<template>`` filled with ``values``."""
    return environment().get_template(template).render(values)


def page(title: str, body: str, scripts: Sequence[str] = ()) -> str:
    """A whole page (``templates/page.html.j2``) titled ``title`` (text) around ``body`` (HTML),
    with the scripts ``static/<name>`` for each of ``scripts`` after print.js."""
    return render("page.html.j2", {"title": title, "body": Markup(body), "scripts": list(scripts)})
