"""The student view, derived once: no hidden expected value reaches results.json, feedback.md or
feedback.html, whatever the case's verdict and wherever the grader wrote it; public values do."""

from __future__ import annotations

import json

import pytest

from autograder.grading.results import HIDDEN_STATES, CaseResult, CaseStatus, CheckResult, Status, SubmissionResult
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.reports import feedback_html, gradescope_json, markdown

HIDDEN = 0.7310585786  # distinctive: no public number or score looks like it
PUBLIC = 0.4142135623


def _forms(value: float) -> list[str]:
    """The ways a renderer could print the value."""
    return [repr(value), f"{value:.6f}", f"{value:.4f}", markdown.value_text(value), str(round(value, 3))]


def _case(status: CaseStatus, public: bool, value: float, case_id: str) -> CaseResult:
    message = {
        CaseStatus.FAIL: f"returned 0.5, expected {value!r}",
        CaseStatus.ERROR: "raised ZeroDivisionError: division by zero",
    }.get(status, "did not finish in time")
    return CaseResult(
        case_id,
        f"what case {case_id} tests",
        public,
        status,
        message,
        f"f({case_id!r})",
        expected=value if status != CaseStatus.ERROR else [value, 1.0],
        actual=0.5,
    )


def _result() -> SubmissionResult:
    cases = [
        _case(status, public, PUBLIC if public else HIDDEN, f"{status}-{public}")
        for status in (CaseStatus.FAIL, CaseStatus.ERROR, CaseStatus.TIMEOUT)
        for public in (True, False)
    ]
    checks = (
        CheckResult(
            "average_precision: hidden edge cases",
            "q3",
            "average_precision",
            CheckKind.EDGE,
            3,
            1,
            "visible",
            tuple(cases),
        ),
        CheckResult(
            "average_precision: random cases",
            "q3",
            "average_precision",
            CheckKind.RANDOM,
            3,
            1,
            "after_due_date",
            tuple(cases),
        ),
    )
    return SubmissionResult("s1", Status.GRADED, checks)


RENDERERS = {
    "results.json": lambda result: json.dumps(gradescope_json.document(result, lab=default_lab())),
    "feedback.md": lambda result: markdown.markdown(result, lab=default_lab()),
    "feedback.html": lambda result: feedback_html.render(result, lab=default_lab()),
}


@pytest.mark.parametrize("name", RENDERERS)
def test_no_hidden_expected_value_is_rendered(name):
    """Does the rendered page hold none of the hidden cases' expected values, in any format?"""
    page = RENDERERS[name](_result())
    assert [form for form in _forms(HIDDEN) if form in page] == []


@pytest.mark.parametrize("name", RENDERERS)
def test_public_expected_values_are_rendered(name):
    """Is a public case's expected value shown (so the check above can fail)?"""
    page = RENDERERS[name](_result())
    assert any(form in page for form in _forms(PUBLIC))


def test_the_full_record_keeps_every_value():
    """Does the instructor's record (grade.json) keep the hidden expected values?"""
    stored = json.dumps(_result().to_dict())
    assert repr(HIDDEN) in stored and SubmissionResult.from_dict(json.loads(stored)) == _result()


def test_student_view_strips_only_what_is_hidden():
    """Does the student view keep hidden cases' descriptions and verdicts only (no value, own message or
    traceback: they could carry the inputs; the verdict in a word of the fixed vocabulary), and public
    cases whole?"""
    view = _result().student_view()
    hidden = [case for check in view.checks for case in check.cases if not case.public]
    public = [case for check in view.checks for case in check.cases if case.public]
    assert hidden and all(case.description for case in hidden)
    assert all((case.expected, case.actual, case.traceback) == (None, None, ()) for case in hidden)
    assert all(case.message in HIDDEN_STATES if not case.passed else case.message == "" for case in hidden)
    assert {case.status for case in hidden} - {CaseStatus.PASS}  # some failed, and still say so
    assert public == [case for check in _result().checks for case in check.cases if case.public]


def test_the_instructor_view_shows_what_the_student_views_hide():
    """Does the instructor's page (instructor.html) show the hidden cases' expected values and calls,
    which none of the student's pages holds (so the student renderers' check above can fail)?"""
    from autograder.reports import instructor_html

    page = instructor_html.render(_result(), lab=default_lab())
    assert any(form in page for form in _forms(HIDDEN))
    assert "f(&#x27;fail-False&#x27;)" in page and "Never give it to a student" in page
    for name, render in RENDERERS.items():
        student = render(_result())
        assert "fail-False" not in student.replace("case fail-False tests", ""), name
