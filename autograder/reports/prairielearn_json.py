"""A grade as PrairieLearn's external-grader ``results.json``, rendered from the student view.

``score`` is the fraction earned, in [0, 1]; every check is a test with ``name``, ``points`` and
``max_points`` (PrairieLearn hides all points when one test lacks them) and its feedback as
``output`` (PrairieLearn has no per-test visibility: a check the rubric does not make
``visible`` shows its points only). A submission whose files could not be used (none found, an unreadable zip) is
``gradable: false`` with ``format_errors``: PrairieLearn then counts no attempt. PrairieLearn
refuses a file over 1 MiB, so long texts are cut, saying so, until the document fits.
"""

from __future__ import annotations

import json
from typing import Any

from autograder.grading.results import SubmissionResult
from autograder.labkit.lab import Lab
from autograder.reports import feedback, markdown

#: PrairieLearn refuses results over 1 MiB; what this renderer allows itself.
MAX_BYTES = 1_000_000
#: The first caps on one test's output and on the top message (characters); halved until it fits.
OUTPUT_CHARS = 16_000
MESSAGE_CHARS = 32_000


def _cut(value: str, limit: int) -> str:
    if len(value) <= limit:
        return value
    return value[:limit] + f"\n[... {len(value) - limit} more characters cut: PrairieLearn keeps results under 1 MB]"


def _document(result: SubmissionResult, lab: Lab, output_chars: int, message_chars: int) -> dict[str, Any]:
    if result.ungradable:
        return {
            "gradable": False,
            "format_errors": [_cut(problem, message_chars) for problem in result.problems]
            or [f"no {' or '.join(f'{lab.package}/{name}' for name in lab.graded_files)} was found in the submission"],
            "message": _cut(markdown.summary_text(result, shown=feedback.at_once, lab=lab), message_chars),
        }
    tests = [
        {
            "name": check.name,
            "description": f"{check.question}: {check.function}",
            "points": round(check.score, 4),
            "max_points": check.max_score,
            "output": _cut(markdown.check_text(check, lab), output_chars)
            if check.visibility == "visible"
            else "the details of this check are hidden",
        }
        for check in result.checks
    ]
    return {
        "gradable": True,
        "score": round(result.score / result.max_score, 6) if result.max_score else 0.0,
        "message": _cut(markdown.summary_text(result, shown=feedback.at_once, lab=lab), message_chars),
        "tests": tests,
    }


def document(result: SubmissionResult, lab: Lab) -> dict[str, Any]:
    """The ``results.json`` document (a dict ready for ``json.dump``), under ``MAX_BYTES``, on ``lab``."""
    result = result.student_view()
    output_chars, message_chars = OUTPUT_CHARS, MESSAGE_CHARS
    while True:
        found = _document(result, lab, output_chars, message_chars)
        if len(json.dumps(found).encode()) <= MAX_BYTES or output_chars < 100:
            return found
        output_chars, message_chars = output_chars // 2, message_chars // 2


def failed(message: str) -> dict[str, Any]:
    """results.json when the grader could not grade: 0 and what happened (the attempt counts,
    as with PrairieLearn's own Python grader)."""
    return {"gradable": True, "score": 0.0, "message": message, "tests": []}
