"""A submission's instructor view (``instructor.html``, beside its feedback in a local batch): the
student's feedback page built from the full result (``feedback.build(..., instructor=True)``), so
hidden cases show their calls, expected values and the submission's own, and the rubric's hidden
checks are there too; then every hidden case in one table, the flags (library use, answers
without computation...), what the code printed after a hidden call, and the grader's log.

It holds what students must never see: it is written only into the batch's folder (which only
its owner may read), never into results.json, feedback.md or feedback.html, and no platform
writes it. Everything that came from the submission is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from autograder.grading.course import deadlines
from autograder.grading.results import Student, SubmissionResult, points
from autograder.labkit.lab import Lab
from autograder.reports import feedback, feedback_html, html

WARNING = (
    "Instructor view: this page shows the hidden cases' inputs and expected values. Never give it to a "
    "student; the student's own page is feedback.html."
)


class HiddenCase(NamedTuple):
    """A hidden case as the instructor's page shows it (values as Python writes them, or None)."""

    passed: bool
    check: str
    description: str
    call: str
    expected: str | None
    actual: str | None
    verdict: str


def _value(value: object) -> str | None:
    return None if value is None else feedback.value_text(value)


def hidden_cases(result: SubmissionResult) -> list[HiddenCase]:
    """Every hidden case of ``result``, check by check."""
    return [
        HiddenCase(
            passed=case.passed,
            check=check.name,
            description=case.description or case.id,
            call=case.call,
            expected=_value(case.expected),
            actual=_value(case.actual),
            verdict=case.status.words + (f": {case.message}" if case.message else ""),
        )
        for check in result.checks
        for case in check.cases
        if not case.public
    ]


def _person(student: Student) -> str:
    parts = (student.name, student.email and f"<{student.email}>", student.sid and f"SID {student.sid}")
    return " ".join(part for part in parts if part)


def facts(result: SubmissionResult) -> list[tuple[str, str]]:
    """What the page says about the submission: who, when, how late, the grade, how it was graded."""
    people = "; ".join(_person(student) for student in result.students)
    when = f"{result.submitted} (from {result.submitted_from})" if result.submitted else "unknown"
    grade = deadlines.grade(result.score, result.max_score, result.late)
    return [
        ("students", people or "(none named: no Gradescope metadata)"),
        ("submitted", when),
        ("lateness", deadlines.describe(result.late, result.max_score) or "no due date"),
        ("grade", f"{points(grade)} / {points(result.max_score)}"),
        ("isolation", result.isolation),
        ("random seed", result.random_seed),
        ("grading time", f"{result.execution_time:.2f} s"),
    ]


def render(result: SubmissionResult, titles: Mapping[str, str] | None = None, report: str = "", *, lab: Lab) -> str:
    """The instructor's page for ``result`` (the full result, never a student view) on ``lab``."""
    found = feedback.build(result, titles, instructor=True, lab=lab)
    shown = feedback_html.values(found, report) | {
        "result": result,
        "warning": WARNING,
        "facts": facts(result),
        "hidden": hidden_cases(result),
    }
    body = html.render("instructor.html.j2", shown)
    return html.page(f"{found.lab_title} instructor view: {result.submission}", body, ("filter.js",))
