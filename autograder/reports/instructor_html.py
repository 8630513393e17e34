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

from autograder.grading.course import deadlines
from autograder.grading.results import Student, SubmissionResult, points
from autograder.lab.spec import LAB_NAME
from autograder.reports import feedback, feedback_html
from autograder.reports.html import esc, filter_box, mark, page, wide

WARNING = (
    "Instructor view: this page shows the hidden cases' inputs and expected values. Never give it to a "
    "student; the student's own page is feedback.html."
)


def _value(value: object) -> str:
    if value is None:
        return ""
    shown = feedback.value_text(value)
    return f"<pre>{esc(shown)}</pre>" if "\n" in shown else f"<code>{esc(shown)}</code>"


def _hidden_cases(result: SubmissionResult) -> str:
    rows = []
    for check in result.checks:
        for case in check.cases:
            if case.public:
                continue
            verdict = case.status.words + (f": {case.message}" if case.message else "")
            rows.append(
                f"<tr><td>{mark(case.passed)}</td><td>{esc(check.name)}</td><td>{esc(case.description or case.id)}"
                f"<br><code>{esc(case.call)}</code></td><td>{_value(case.expected)}</td><td>{_value(case.actual)}</td>"
                f"<td>{esc(verdict)}</td></tr>"
            )
    if not rows:
        return "<p>No hidden case was run.</p>"
    return filter_box("hidden-cases", "Filter the hidden cases", "cases") + wide(
        '<table id="hidden-cases"><thead><tr><th><span class="visually-hidden">result</span></th><th>check</th>'
        "<th>case and call</th><th>expected</th><th>returned</th><th>verdict</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>",
        "Every hidden case",
    )


def _person(student: Student) -> str:
    parts = (student.name, student.email and f"<{student.email}>", student.sid and f"SID {student.sid}")
    return " ".join(part for part in parts if part)


def _facts(result: SubmissionResult) -> str:
    people = "; ".join(_person(student) for student in result.students)
    when = f"{result.submitted} (from {result.submitted_from})" if result.submitted else "unknown"
    grade = deadlines.grade(result.score, result.max_score, result.late)
    rows = [
        ("students", people or "(none named: no Gradescope metadata)"),
        ("submitted", when),
        ("lateness", deadlines.describe(result.late, result.max_score) or "no due date"),
        ("grade", f"{points(grade)} / {points(result.max_score)}"),
        ("isolation", result.isolation),
        ("random seed", result.random_seed),
        ("grading time", f"{result.execution_time:.2f} s"),
    ]
    return wide(
        '<table class="facts" id="instructor-facts">'
        + "".join(f"<tr><td>{esc(name)}</td><td>{esc(value)}</td></tr>" for name, value in rows)
        + "</table>",
        "About this submission",
    )


def render(result: SubmissionResult, titles: Mapping[str, str] | None = None, report: str = "") -> str:
    """The instructor's page for ``result`` (the full result, never a student view)."""
    found = feedback.build(result, titles, instructor=True)
    who = f" ({esc(found.who)})" if found.who else ""
    flags = "".join(f'<li class="fail">{esc(flag)}</li>' for flag in result.flags)
    body = [
        feedback_html.back(report),
        f"<h1>{LAB_NAME} instructor view: {esc(result.submission)}{who}</h1>",
        f'<div class="banner fail"><strong>{esc(WARNING)}</strong></div>',
        _facts(result),
        f"<h2>Flags</h2><ul>{flags}</ul>" if flags else "",
        *feedback_html.sections(found),
        '<h2 id="hidden">Every hidden case</h2>',
        _hidden_cases(result),
    ]
    if result.hidden_output:
        body.append(f"<h2>What the code printed after a hidden call</h2><pre>{esc(result.hidden_output[:8000])}</pre>")
    if result.instructor_log:
        body.append(f"<h2>The grader's log</h2><pre>{esc(result.instructor_log[:8000])}</pre>")
    title = f"{LAB_NAME} instructor view: {result.submission}"
    return page(title, "\n".join(part for part in body if part), ("filter.js",))
