"""The instructor's class report: one self-contained page (``index.html``) for a whole batch, with
students as the unit (``grading/course/standing.py``): each student's submission that counts, the
others superseded.

Grade distribution and statistics of the students' grades (after late penalties); per question
the mean points and the share with full marks; per function how many submissions stand where
(full marks, wrong, not implemented...); the diagnoses (misconceptions, conditions, answer shapes)
and who shows them; the problems (errors, timeouts, crashes, functions left not implemented,
library use, tampering); the pairs of submissions that share much code (``similarity_html``); a
sortable table of the students, each with the submission that counts (linked to its feedback and
to its instructor view, ``instructor_html``), its time and lateness, its points and grade, and the
submissions it superseded; per case its passes and failures by why, worst first, and who
(``class_tables``); and the facts of the grading run. Every list of who names the students and
the submission's id; the statistics, functions, diagnoses, problems and cases count only the
submissions that count. A filter box narrows the Problems and Students tables to the students
whose name, email, SID or submission holds what is typed.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from markupsafe import Markup

from autograder.grading.course import deadlines
from autograder.grading.course.standing import POLICIES, Row, Standing, build, grade, label, submitted_at
from autograder.grading.results import Status, SubmissionResult, points
from autograder.labkit.lab import Lab
from autograder.reports import class_tables, html, output_paths, similarity_html, svg

if TYPE_CHECKING:  # for types only: the report loads neither the rubric's parser nor the similarity analysis
    from autograder.grading.rubric import Rubric
    from autograder.similarity.compare import Similarity


class QuestionRow(NamedTuple):
    """A question's row: its mean points and the share of students with full marks."""

    id: str
    title: str
    mean: str
    points: str
    full: str


class ProblemRow(NamedTuple):
    """A submission with problems: its errors' first lines, what it left unfinished, its flags."""

    href: str
    label: str
    status: str
    problems: list[str]
    unfinished: str
    flags: list[str]


class Superseded(NamedTuple):
    """A submission a later one of the same student supersedes."""

    href: str
    submission: str
    score: str
    graded: str  # its grade when the late penalty changed it, else ""
    time: str
    late: str


class StudentRow(NamedTuple):
    """A student's row: who, the submission that counts, its points and grade, the others."""

    sort_name: str
    name: str
    ids: list[str]  # email, SID
    submission: str
    href: str
    reason: str
    instructor: str
    submitted_at: str
    time: str
    late_seconds: int
    lateness: str
    scores: list[str]
    score: str
    grade: str
    status: str
    diagnoses: int
    highest: str
    similar: Markup
    superseded: list[Superseded]


def _statistics(found: Standing, scores: list[float], total: float) -> list[tuple[str, object]]:
    if not scores:
        return []
    rows: list[tuple[str, object]] = [
        ("students", len(found.rows)),
        ("submissions counted", len(found.counted)),
        ("superseded (not counted)", len(found.superseded)),
        ("mean", f"{statistics.fmean(scores):.2f}"),
        ("median", f"{statistics.median(scores):.2f}"),
        ("standard deviation", f"{statistics.pstdev(scores):.2f}"),
        ("lowest", points(min(scores))),
        ("highest", points(max(scores))),
        ("full marks", sum(score >= total for score in scores)),
        ("zero", sum(score == 0 for score in scores)),
    ]
    late = [row.chosen.late for row in found.rows if row.chosen.late is not None]
    if late:
        rows.append(("late (students)", sum(item.seconds > 0 for item in late)))
        rows.append(("not accepted (students)", sum(not item.accepted for item in late)))
    return rows


def _analysis(
    found: Standing, rubric: Rubric, sheet: Mapping[str, tuple[float, float | None]] | None
) -> tuple[list[tuple[str, object]], list[str]]:
    """The written analysis's summary ((name, value) pairs) and who awaits a TA's prose points, from the
    grading sheet (``reports/analysis_grades.py``); nothing without a sheet or an ``analysis:`` section."""
    points_of = rubric.analysis
    if sheet is None or points_of is None:
        return [], []
    entries = {row.chosen.submission: sheet.get(row.chosen.submission) for row in found.rows}
    listed = [entry for entry in entries.values() if entry is not None]
    graded = [entry for entry in listed if entry[1] is not None]
    summary: list[tuple[str, object]] = [
        ("students with a row in the grading sheet", f"{len(listed)} of {len(found.rows)}"),
        ("prose graded", f"{len(graded)} of {len(listed)}"),
    ]
    if listed:
        summary.append(
            ("mean claims points", f"{statistics.fmean(e[0] for e in listed):.2f} / {points(points_of.claims_max)}")
        )
    if graded:
        summary.append(
            (
                "mean prose points",
                f"{statistics.fmean(e[1] or 0.0 for e in graded):.2f} / {points(points_of.prose_points)}",
            )
        )
        summary.append(
            (
                "mean analysis points (prose graded)",
                f"{statistics.fmean(e[0] + (e[1] or 0.0) for e in graded):.2f} / {points(points_of.total)}",
            )
        )
    waiting = [
        f"{label(row.chosen)}: "
        + ("no row in the grading sheet" if entries[row.chosen.submission] is None else "prose not graded yet")
        for row in found.rows
        if (entries[row.chosen.submission] or (0.0, None))[1] is None
    ]
    return summary, waiting


def _questions(found: Standing, rubric: Rubric) -> list[QuestionRow]:
    rows = []
    for question in rubric.questions:
        scores = [row.chosen.question_scores().get(question.id, 0.0) for row in found.rows]
        mean = statistics.fmean(scores) if scores else 0.0
        full = sum(score >= question.points - 1e-9 for score in scores) / len(scores) if scores else 0.0
        rows.append(QuestionRow(question.id, question.title, f"{mean:.2f}", points(question.points), f"{full:.0%}"))
    return rows


def _problems(results: Iterable[SubmissionResult]) -> list[ProblemRow]:
    rows = []
    for result in results:
        flags = list(result.flags)
        unfinished = result.unfinished()
        if result.status != Status.GRADED or result.problems or flags or unfinished:
            rows.append(
                ProblemRow(
                    href=output_paths.link(result.submission),
                    label=label(result) or result.submission,
                    status=result.status,
                    problems=[problem.splitlines()[0] for problem in result.problems],
                    unfinished=", ".join(unfinished),
                    flags=[str(flag) for flag in flags],
                )
            )
    return rows


def _time(result: SubmissionResult) -> str:
    when = submitted_at(result)
    return deadlines.shown(when) if when else ""


def _superseded(row: Row) -> list[Superseded]:
    return [
        Superseded(
            href=output_paths.link(other.submission),
            submission=other.submission,
            score=points(other.score),
            graded=points(grade(other)) if grade(other) != other.score else "",
            time=_time(other),
            late=deadlines.brief(other.late) if other.late is not None else "",
        )
        for other in row.superseded
    ]


def _students(found: Standing, rubric: Rubric, similarity: Similarity | None) -> list[StudentRow]:
    questions = [question.id for question in rubric.questions]
    rows = []
    for row in found.rows:
        result = row.chosen
        scores = result.question_scores()
        similar, highest = similarity_html.cell(similarity, result.submission)
        student = row.student
        rows.append(
            StudentRow(
                sort_name=student.name or result.submission,
                name=student.name,
                ids=[part for part in (student.email, student.sid and f"SID {student.sid}") if part],
                submission=result.submission,
                href=output_paths.link(result.submission),
                reason=row.reason,
                instructor=output_paths.link(result.submission, output_paths.INSTRUCTOR),
                submitted_at=submitted_at(result),
                time=_time(result),
                late_seconds=result.late.seconds if result.late else 0,
                lateness=deadlines.brief(result.late),
                scores=[points(scores.get(question, 0)) for question in questions],
                score=points(result.score),
                grade=points(row.grade),
                status=result.status,
                diagnoses=len({(d.id, d.function) for c in result.checks for d in c.diagnoses}),
                highest=f"{highest:.4f}",
                similar=Markup(similar),
                superseded=_superseded(row),
            )
        )
    return rows


def render(
    found: Standing | Collection[SubmissionResult],
    rubric: Rubric,
    facts: Mapping[str, str | int],
    similarity: Similarity | None = None,
    *,
    lab: Lab,
    analysis: Mapping[str, tuple[float, float | None]] | None = None,
) -> str:
    """The report page for the class ``found`` (``standing.build``; or its results, to which the
    rubric's policy is applied) graded with ``rubric``; ``facts`` about the run; ``similarity`` the
    batch's code similarity (None: turned off, or it did not run); ``lab``: the lab graded; ``analysis``
    the written analysis's grading sheet (submission -> its claims' and prose's points; None: no sheet,
    no section). The layout is ``templates/class_report.html.j2``."""
    title = lab.title
    found = found if isinstance(found, Standing) else build(found, rubric.policy)
    counted = found.counted
    every = {result.submission: result for result in (*counted, *found.superseded)}
    scores = [row.grade for row in found.rows]
    distribution = svg.histogram(scores, 0, rubric.total, bins=10, label="grades") + svg.histogram_table(
        scores, 0, rubric.total, bins=10, label="grades"
    )
    analysis_summary, analysis_waiting = _analysis(found, rubric, analysis)
    body = html.render(
        "class_report.html.j2",
        {
            "lab_name": title,
            "students": len(found.rows),
            "submissions": len(every),
            "policy": POLICIES[found.policy],
            "distribution": Markup(distribution),
            "statistics": _statistics(found, scores, rubric.total),
            "questions": _questions(found, rubric),
            "analysis": analysis_summary,
            "analysis_waiting": analysis_waiting,
            "functions": Markup(class_tables.functions_table(counted)),
            "diagnoses": Markup(class_tables.diagnoses_table(counted)),
            "problems": _problems(counted),
            "similarity": Markup(similarity_html.section(similarity, rubric.similarity, every)),
            "similar_pairs": len(similarity.pairs) if similarity is not None else 0,
            "question_ids": [question.id for question in rubric.questions],
            "rows": _students(found, rubric, similarity),
            "cases": Markup(class_tables.cases_table(counted)),
            "facts": list(facts.items()),
        },
    )
    return html.page(f"{title} class report", body, ("sort.js", "filter.js", "unfold.js"))
