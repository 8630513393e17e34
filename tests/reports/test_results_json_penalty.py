"""results.json's ``score`` is the grade after the late penalty, wherever it is written: a local
batch's (``local/classwork.py: write_result``) and run_autograder's (``lateness.render_late``) of
the same result are the same document."""

from __future__ import annotations

import functools

import pytest

from autograder.grading.course.deadlines import Late
from autograder.grading.results import CheckResult, Status, SubmissionResult
from autograder.labkit.kinds import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.platforms.gradescope import lateness
from autograder.reports import gradescope_json

DUE = "2026-12-05T23:59:00-06:00"

#: id: (the submission's lateness, the score results.json must hold for 74 of 100 points)
LATENESS = {
    "no deadline": (None, 74),
    "on time": (Late(DUE, "2026-12-05T20:00:00-06:00"), 74),
    "a day late at 10 %": (Late(DUE, "2026-12-06T00:30:00-06:00", 1860, 1, "day", 10), 64),
    "two days late at 10 %": (Late(DUE, "2026-12-07T00:30:00-06:00", 88260, 2, "day", 20), 54),
    "after the last accepted time": (Late(DUE, "2026-12-11T01:00:00-06:00", 436860, 6, "day", 50, False), 0),
}


def _result(late: Late | None) -> SubmissionResult:
    checks = (
        CheckResult("f: examples", "q1", "f", CheckKind.EXAMPLES, 60, 60, "visible"),
        CheckResult("f: edge cases", "q1", "f", CheckKind.EDGE, 40, 14, "visible"),
    )
    return SubmissionResult("s1", Status.GRADED, checks, late=late)


@pytest.mark.parametrize("case", LATENESS.values(), ids=LATENESS.keys())
def test_results_json_score_is_the_grade_after_the_penalty(case):
    """Is a local batch's results.json score the grade after the late penalty (74 points less 10 a
    day late, 0 after the last accepted time), the same document run_autograder writes?"""
    late, expected = case
    local = gradescope_json.document(_result(late), default_lab())
    platform = lateness.render_late(functools.partial(gradescope_json.document, lab=default_lab()), late)(_result(None))
    assert local["score"] == expected, local["score"]
    assert local == platform
