"""``grades.csv``: one row per submission, the engine's own table (identity, points per question,
total, status, flags, and the functions left not implemented: a partly done submission has them);
every cell spreadsheet-safe (``csvcells``: names come from students)."""

from __future__ import annotations

import csv
import io

from autograder.grading.results import points
from autograder.reports import csvcells


def render(results, rubric) -> str:
    """The table as CSV text."""
    questions = [question.id for question in rubric.questions]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["submission", "name", "email", "sid", *questions, "total", "max", "status", "flags", "not_implemented"]
    )
    for result in results:
        scores = result.question_scores()
        writer.writerow(
            csvcells.row(
                [
                    result.submission,
                    "; ".join(s.name for s in result.students),
                    "; ".join(s.email for s in result.students),
                    "; ".join(s.sid for s in result.students),
                    *[points(scores.get(q, 0.0)) for q in questions],
                    points(result.score),
                    points(rubric.total),
                    result.status,
                    " | ".join(str(flag) for flag in result.flags),
                    " ".join(result.unfinished()),
                ]
            )
        )
    return out.getvalue()
