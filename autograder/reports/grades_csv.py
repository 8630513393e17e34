"""``grades.csv``: one row per student, the engine's own table: who (name, email, SID), the
submission that counts (``grading/course/standing.py``) and when it was submitted, its lateness and
penalty, points per question, the total, the grade after the penalty, status, flags, the
functions left not implemented (a partly done submission has them) and the student's superseded
submissions; every cell spreadsheet-safe (``untrusted.csv_cell``: names come from students)."""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from autograder.grading.course import deadlines, standing
from autograder.grading.results import SubmissionResult, points
from autograder.reports import untrusted

if TYPE_CHECKING:  # for types only: the table does not load the rubric's parser
    from autograder.grading.rubric import Rubric

HEADER = (
    "name", "email", "sid", "submission", "submitted", "late", "late_hours", "penalty",
)  # fmt: skip


def _superseded(row: standing.Row) -> str:
    return "; ".join(
        f"{other.submission} ({points(other.score)}"
        + (f", graded {points(standing.grade(other))}" if standing.grade(other) != other.score else "")
        + (f", {deadlines.shown(standing.submitted_at(other))}" if standing.submitted_at(other) else "")
        + (f", {deadlines.brief(other.late)}" if other.late is not None else "")
        + ")"
        for other in row.superseded
    )


#: The written analysis's columns, after the others, only when its grading sheet is merged: its points never
#: change the code's (``total``, ``grade``).
ANALYSIS = ("analysis_claims", "analysis_prose", "analysis", "analysis_max")


def _analysis(sheet: Mapping[str, tuple[float, float | None]] | None, submission: str, rubric: Rubric) -> list[str]:
    """The analysis's cells of a submission: its claims' points, its prose's (empty: not graded yet), their
    sum and the maximum; all empty when the sheet has no row for it."""
    if sheet is None or rubric.analysis is None or submission not in sheet:
        return ["", "", "", ""]
    claims, prose = sheet[submission]
    return [
        points(claims),
        "" if prose is None else points(prose),
        points(claims + (prose or 0.0)),
        points(rubric.analysis.total),
    ]


def render(
    found: standing.Standing | Collection[SubmissionResult],
    rubric: Rubric,
    analysis: Mapping[str, tuple[float, float | None]] | None = None,
) -> str:
    """The table as CSV text, for the class ``found`` (``standing.build``; or its results, to which
    the rubric's policy is applied); with ``analysis`` (submission -> its claims' points and its
    prose's, None when not graded yet: the grading sheet, ``reports/analysis_grades.py``) the analysis's
    columns too (empty for a submission the sheet lacks)."""
    found = found if isinstance(found, standing.Standing) else standing.build(found, rubric.policy)
    questions = [question.id for question in rubric.questions]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    extra = ANALYSIS if analysis is not None and rubric.analysis is not None else ()
    writer.writerow(
        [*HEADER, *questions, "total", "grade", "max", "status", "flags", "not_implemented", "superseded", *extra]
    )
    for row in found.rows:
        result, student = row.chosen, row.student
        scores = result.question_scores()
        late = result.late
        writer.writerow(
            untrusted.csv_row(
                [
                    student.name,
                    student.email,
                    student.sid,
                    result.submission,
                    standing.submitted_at(result),
                    deadlines.brief(late),
                    f"{late.seconds / 3600:.2f}" if late is not None and late.submitted else "",
                    points(result.score - row.grade) if late is not None else "",
                    *[points(scores.get(q, 0.0)) for q in questions],
                    points(result.score),
                    points(row.grade),
                    points(rubric.total),
                    result.status,
                    " | ".join(str(flag) for flag in result.flags),
                    " ".join(result.unfinished()),
                    _superseded(row),
                    *(_analysis(analysis, result.submission, rubric) if extra else ()),
                ]
            )
        )
    return out.getvalue()
