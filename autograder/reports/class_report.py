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
from typing import TYPE_CHECKING

from autograder.grading.course import deadlines
from autograder.grading.course.standing import POLICIES, Row, Standing, build, grade, label, submitted_at
from autograder.grading.results import Status, SubmissionResult, points
from autograder.lab.spec import LAB_NAME
from autograder.reports import class_tables, output_paths, similarity_html, svg
from autograder.reports.html import esc, feedback_link, filter_box, page, sortable, wide

if TYPE_CHECKING:  # for types only: the report loads neither the rubric's parser nor the similarity analysis
    from autograder.grading.rubric import Rubric
    from autograder.similarity.compare import Similarity


def _link(result: SubmissionResult, text: str | None = None) -> str:
    return feedback_link(result.submission, text)


def _statistics(found: Standing, scores: list[float], total: float) -> str:
    if not scores:
        return "<p>No submissions.</p>"
    rows = [
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
    return wide(
        '<table class="facts" id="statistics">'
        + "".join(f'<tr><td>{name}</td><td class="num">{value}</td></tr>' for name, value in rows)
        + "</table>",
        "Statistics",
    )


def _questions(found: Standing, rubric: Rubric) -> str:
    rows = []
    for question in rubric.questions:
        scores = [row.chosen.question_scores().get(question.id, 0.0) for row in found.rows]
        mean = statistics.fmean(scores) if scores else 0.0
        full = sum(score >= question.points - 1e-9 for score in scores) / len(scores) if scores else 0.0
        rows.append(
            f"<tr><td>{esc(question.id)}</td><td>{esc(question.title)}</td>"
            f'<td class="num">{mean:.2f} / {points(question.points)}</td><td class="num">{full:.0%}</td></tr>'
        )
    return wide(
        "<table><thead><tr><th>question</th><th>title</th><th class=num>mean points</th>"
        "<th class=num>full marks</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>",
        "Questions",
    )


def _problems(results: Iterable[SubmissionResult]) -> str:
    rows = []
    for result in results:
        flags = list(result.flags)
        unfinished = result.unfinished()
        if result.status != Status.GRADED or result.problems or flags or unfinished:
            items = [f"<li>{esc(problem.splitlines()[0])}</li>" for problem in result.problems]
            if unfinished:
                items.append(f'<li class="unfinished">partly done: not implemented: {esc(", ".join(unfinished))}</li>')
            items += [f'<li class="fail">{esc(flag)}</li>' for flag in flags]
            rows.append(
                f"<tr><td>{_link(result, label(result))}</td><td>{esc(result.status)}</td>"
                f"<td><ul>{''.join(items)}</ul></td></tr>"
            )
    if not rows:
        return "<p>No submission had errors, timeouts, crashes, functions not implemented or flags.</p>"
    return wide(
        '<table id="problems"><thead><tr><th>submission</th><th>status</th><th>problems and flags</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table>",
        "Problems",
    )


def _who(row: Row) -> str:
    student = row.student
    ids = " · ".join(esc(part) for part in (student.email, student.sid and f"SID {student.sid}") if part)
    name = esc(student.name) if student.name else f'<span class="muted">{esc(row.chosen.submission)}</span>'
    return name + (f'<br><span class="muted">{ids}</span>' if ids else "")


def _time(result: SubmissionResult) -> str:
    when = submitted_at(result)
    return deadlines.shown(when) if when else ""


def _superseded(row: Row) -> str:
    items = [
        f"<li>{_link(other)} ({points(other.score)}"
        + (f", graded {points(grade(other))}" if grade(other) != other.score else "")
        + (f"; {esc(_time(other))}" if _time(other) else "")
        + (f"; {esc(deadlines.brief(other.late))}" if other.late is not None else "")
        + ")</li>"
        for other in row.superseded
    ]
    return f'<ul class="plain">{"".join(items)}</ul>' if items else ""


def _students(found: Standing, rubric: Rubric, similarity: Similarity | None) -> str:
    questions = [question.id for question in rubric.questions]
    header = (
        f"<tr>{sortable('student')}{sortable('submission')}{sortable('submitted')}{sortable('lateness')}"
        + "".join(sortable(esc(q), numeric=True) for q in questions)
        + f"{sortable('total', numeric=True)}{sortable('grade', numeric=True)}{sortable('status')}"
        f"{sortable('diagnoses', numeric=True)}{sortable('similar code')}<th>superseded submissions</th></tr>"
    )
    rows = []
    for row in found.rows:
        result = row.chosen
        scores = result.question_scores()
        diagnoses = len({(d.id, d.function) for c in result.checks for d in c.diagnoses})
        similar, highest = similarity_html.cell(similarity, result.submission)
        instructor = (
            f'<a href="{esc(output_paths.link(result.submission, output_paths.INSTRUCTOR))}">instructor view</a>'
        )
        lateness = deadlines.brief(result.late)
        rows.append(
            f'<tr><td data-value="{esc(row.student.name or result.submission)}">{_who(row)}</td>'
            f'<td>{_link(result)}<br><span class="muted">{esc(row.reason)}</span><br>{instructor}</td>'
            f'<td data-value="{esc(submitted_at(result))}">{esc(_time(result))}</td>'
            f'<td data-value="{result.late.seconds if result.late else 0}">{esc(lateness)}</td>'
            + "".join(f'<td class="num">{points(scores.get(q, 0))}</td>' for q in questions)
            + f'<td class="num">{points(result.score)}</td><td class="num">{points(row.grade)}</td>'
            f'<td>{esc(result.status)}</td><td class="num">{diagnoses}</td>'
            f'<td data-value="{highest:.4f}">{similar}</td><td>{_superseded(row)}</td></tr>'
        )
    table = f'<table class="sortable" id="students"><thead>{header}</thead><tbody>{"".join(rows)}</tbody></table>'
    return wide(table, "Students")


def render(
    found: Standing | Collection[SubmissionResult],
    rubric: Rubric,
    facts: Mapping[str, str | int],
    similarity: Similarity | None = None,
) -> str:
    """The report page for the class ``found`` (``standing.build``; or its results, to which the
    rubric's policy is applied) graded with ``rubric``; ``facts`` about the run; ``similarity`` the
    batch's code similarity (None: turned off, or it did not run)."""
    found = found if isinstance(found, Standing) else build(found, rubric.policy)
    counted = found.counted
    every = {result.submission: result for result in (*counted, *found.superseded)}
    scores = [row.grade for row in found.rows]
    body = [
        f"<h1>{LAB_NAME} class report: {len(found.rows)} students, {len(every)} submissions</h1>",
        f'<p class="muted">Each student counts once, with {esc(POLICIES[found.policy])} (grading.yml: '
        "students.policy); their other submissions are listed under them and left out of every count below.</p>",
        filter_box("students problems", "Filter the Problems and Students tables by name, email, SID or submission"),
        '<h2 id="distribution">Grade distribution</h2>',
        "<figure>"
        + svg.histogram(scores, 0, rubric.total, bins=10, label="grades")
        + svg.histogram_table(scores, 0, rubric.total, bins=10, label="grades")
        + "</figure>",
        _statistics(found, scores, rubric.total),
        '<h2 id="questions">Questions</h2>',
        _questions(found, rubric),
        '<h2 id="functions-heading">Functions</h2>',
        '<p class="muted">How many submissions stand where on each function; open <em>who</em> for them.</p>',
        class_tables.functions_table(counted),
        '<h2 id="misconceptions-heading">Misconceptions and other diagnoses</h2>',
        class_tables.diagnoses_table(counted),
        '<h2 id="problems-heading">Problems</h2>',
        _problems(counted),
        '<h2 id="similarity">Similar code</h2>',
        similarity_html.section(similarity, rubric.similarity, every),
        '<h2 id="students-heading">Students</h2>',
        '<p class="muted">Click a column header (or press Enter on it) to sort by it; again for the other way. '
        "The grade is the total less any late penalty.</p>",
        _students(found, rubric, similarity),
        '<h2 id="cases-heading">Cases, worst first</h2>',
        class_tables.cases_table(counted),
        '<h2 id="facts">Grading run</h2>'
        + wide(
            '<table class="facts">'
            + "".join(f"<tr><td>{esc(key)}</td><td>{esc(value)}</td></tr>" for key, value in facts.items())
            + "</table>",
            "Grading run",
        ),
    ]
    return page(f"{LAB_NAME} class report", "\n".join(body), ("sort.js", "filter.js"))
