"""A submission's grade as Gradescope's ``results.json`` (its autograder specification):
top-level ``score``, ``execution_time``, ``output``, and one test per check with ``name``,
``score``, ``max_score``, ``status``, ``output`` and ``visibility``."""

from __future__ import annotations

from autograder import feedback
from autograder.results import SubmissionResult

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def results_json(result: SubmissionResult) -> dict:
    """The ``results.json`` document (a dict ready for ``json.dump``)."""
    tests = []
    for number, check in enumerate(result.checks, start=1):
        tests.append({
            "name": check.name,
            "number": f"{check.question[1:] if check.question[1:].isdigit() else check.question}.{number}",
            "score": round(check.score, 4),
            "max_score": check.max_score,
            "status": "passed" if check.score >= check.max_score else "failed",
            "output": feedback.check_text(check),
            "output_format": "text",
            "visibility": check.visibility,
            "tags": [check.question, check.function],
        })
    return {
        "score": result.score,
        "execution_time": round(result.execution_time, 3),
        "output": feedback.summary_text(result),
        "output_format": "text",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
