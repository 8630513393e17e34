"""A submission's feedback as a self-contained HTML page (``feedback.html``): the content of
``reports/feedback.py``, as feedback.md has it, with the passing checks and the failing cases past
the first few folded in ``<details>``, and for the Cranfield checks a plot of the student's
per-query values against ir_measures' where they differ. In a local batch the page links back to
the class report. Everything that came from the submission is escaped.

The layout is ``templates/feedback.html.j2`` and its parts ``templates/feedback_parts.html.j2``
(shared with the instructor's page); this module computes what they show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from autograder.grading.results import FunctionState, SubmissionResult, points
from autograder.labkit.lab import Lab
from autograder.reports import feedback, html, svg
from autograder.reports.feedback import Feedback

#: The state of a function that earned every point (a ✓ in the summary; any other is a ✗).
FULL = FunctionState.FULL


def _scatter(found: Sequence[tuple[float, float, str]]) -> Markup:
    return Markup(svg.scatter(list(found), x_label="ir_measures", y_label="your value"))


def _points_table(found: Sequence[tuple[float, float, str]]) -> Markup:
    return Markup(svg.points_table(list(found), x_label="ir_measures", y_label="your value", label="query"))


def values(found: Feedback, report: str) -> dict[str, object]:
    """What ``feedback_parts.html.j2`` needs to lay out ``found``; ``report``: the class report's
    address relative to the page, or "" (on a platform, where there is none)."""
    return {
        "found": found,
        "report": report,
        "lab_name": found.lab_title,
        "points": points,
        "full": FULL,
        "cranfield_queries": feedback.CRANFIELD_QUERIES,
        "scatter": _scatter,
        "points_table": _points_table,
    }


def render(result: SubmissionResult, titles: Mapping[str, str] | None = None, report: str = "", *, lab: Lab) -> str:
    """The whole feedback page; ``report``: the class report's address relative to the page (a
    local batch's), or "" (on a platform, where there is none); ``lab``: the lab graded."""
    found = feedback.build(result, titles, lab=lab)
    body = html.render("feedback.html.j2", values(found, report))
    return html.page(f"{found.lab_title} feedback: {found.submission}", body)
