"""A grade as Gradescope's ``results.json``: top-level ``score``, ``execution_time``, ``output``,
and one test per check with ``name``, ``score``, ``max_score``, ``status``, ``output`` and
``visibility``. Rendered from the student view: students read it on Gradescope. The texts are
feedback.md's (``reports/markdown.py``), rendered by Gradescope as Markdown: the summary on top (only
the checks every student sees at once, so it tells nothing of a check shown after the due date),
each check's failing cases in its test. ``extra_data`` says whether the grade counts as an
attempt (``ATTEMPT``; ``platforms/gradescope/attempts.py`` reads it back on a later run), in every
results.json alike: a local batch's and run_autograder's of the same files are the same bytes.
``score`` is the grade after the late penalty when the result carries its lateness
(``deadlines.grade``), the one score Gradescope keeps: a local batch's results.json says what
run_autograder's says of the same submission, at the same time."""

from __future__ import annotations

from typing import Any

from autograder.grading.course import deadlines
from autograder.grading.results import Status, SubmissionResult
from autograder.labkit.lab import Lab
from autograder.reports import feedback, markdown

ATTEMPT = "lab05_attempt"  # the key of the marker in results.json's extra_data
GRADED, NOT_GRADED, OVER = "graded", "not graded", "over the limit"  # its states


def document(result: SubmissionResult, lab: Lab) -> dict[str, Any]:
    """The ``results.json`` document (a dict ready for ``json.dump``) on ``lab``; its ``score`` after
    the late penalty of ``result.late``, where there is one."""
    late = result.late
    result = result.student_view()
    tests = []
    for number, check in enumerate(result.checks, start=1):
        tests.append(
            {
                "name": check.name,
                "number": f"{check.question[1:] if check.question[1:].isdigit() else check.question}.{number}",
                "score": round(check.score, 4),
                "max_score": check.max_score,
                "status": "passed" if check.full else "failed",
                "output": markdown.check_text(check, lab),
                "output_format": "md",
                "visibility": check.visibility,
                "tags": [check.question, check.function],
            }
        )
    return {
        "score": deadlines.grade(result.score, result.max_score, late) if late is not None else result.score,
        "execution_time": round(result.execution_time, 3),
        "output": markdown.summary_text(result, shown=feedback.at_once, lab=lab),
        "output_format": "md",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {ATTEMPT: NOT_GRADED if result.status == Status.ERROR else GRADED},
    }


def failed(message: str) -> dict[str, Any]:
    """results.json when the grader could not grade: 0 points and what happened."""
    return {
        "score": 0,
        "tests": [],
        "output": message,
        "output_format": "text",
        "stdout_visibility": "hidden",
        "extra_data": {ATTEMPT: NOT_GRADED},
    }
