"""The instructor's class report: one self-contained page (``index.html``) for a whole batch.

Score distribution and statistics; per question the mean points and the share with full
marks; per function how many submissions stand where (full marks, wrong, not implemented...);
the diagnoses (misconceptions, conditions, answer shapes) and who shows them; the problems
(errors, timeouts, crashes, functions left not implemented, library use, tampering); the pairs of
submissions that share much code (``similarity_html``); a sortable table of all submissions
linking to their feedback pages and their similar pairs; per case its passes and failures by
why, worst first, and who (``class_tables``); and the facts of the grading run.
"""

from __future__ import annotations

import statistics

from autograder.grading.results import Status, points
from autograder.lab.spec import LAB_NAME
from autograder.reports import class_tables, similarity_html, svg
from autograder.reports.html import SORT_SCRIPT, esc, feedback_link, page, sortable, wide


def _link(result, text=None) -> str:
    return feedback_link(result.submission, text)


def _names(result) -> str:
    return ", ".join(student.name for student in result.students if student.name)


def _statistics(scores, total) -> str:
    if not scores:
        return "<p>No submissions.</p>"
    rows = [
        ("submissions", len(scores)),
        ("mean", f"{statistics.fmean(scores):.2f}"),
        ("median", f"{statistics.median(scores):.2f}"),
        ("standard deviation", f"{statistics.pstdev(scores):.2f}"),
        ("lowest", points(min(scores))),
        ("highest", points(max(scores))),
        ("full marks", sum(score >= total for score in scores)),
        ("zero", sum(score == 0 for score in scores)),
    ]
    return wide(
        '<table class="facts" id="statistics">'
        + "".join(f'<tr><td>{name}</td><td class="num">{value}</td></tr>' for name, value in rows)
        + "</table>",
        "Statistics",
    )


def _questions(results, rubric) -> str:
    rows = []
    for question in rubric.questions:
        scores = [result.question_scores().get(question.id, 0.0) for result in results]
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


def _problems(results) -> str:
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
                f"<tr><td>{_link(result)}</td><td>{esc(result.status)}</td><td><ul>{''.join(items)}</ul></td></tr>"
            )
    if not rows:
        return "<p>No submission had errors, timeouts, crashes, functions not implemented or flags.</p>"
    return wide(
        '<table id="problems"><thead><tr><th>submission</th><th>status</th><th>problems and flags</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table>",
        "Problems",
    )


def _submissions(results, rubric, similarity) -> str:
    questions = [question.id for question in rubric.questions]
    header = (
        f"<tr>{sortable('submission')}{sortable('name')}"
        + "".join(sortable(esc(q), numeric=True) for q in questions)
        + f"{sortable('total', numeric=True)}{sortable('status')}{sortable('diagnoses', numeric=True)}"
        f"{sortable('similar code')}</tr>"
    )
    rows = []
    for result in results:
        scores = result.question_scores()
        diagnoses = len({(d.id, d.function) for c in result.checks for d in c.diagnoses})
        similar, highest = similarity_html.cell(similarity, result.submission)
        rows.append(
            f"<tr><td>{_link(result)}</td><td>{esc(_names(result))}</td>"
            + "".join(f'<td class="num">{points(scores.get(q, 0))}</td>' for q in questions)
            + f'<td class="num">{points(result.score)}</td><td>{esc(result.status)}</td>'
            f'<td class="num">{diagnoses}</td><td data-value="{highest:.4f}">{similar}</td></tr>'
        )
    table = f'<table class="sortable" id="submissions"><thead>{header}</thead><tbody>{"".join(rows)}</tbody></table>'
    return wide(table, "Submissions")


def render(results, rubric, facts: dict, similarity=None) -> str:
    """The report page for ``results`` graded with ``rubric``; ``facts`` about the run;
    ``similarity`` the batch's code similarity (None: turned off, or it did not run)."""
    scores = [result.score for result in results]
    body = [
        f"<h1>{LAB_NAME} class report: {len(results)} submissions</h1>",
        '<h2 id="distribution">Score distribution</h2>',
        "<figure>"
        + svg.histogram(scores, 0, rubric.total, bins=10, label="scores")
        + svg.histogram_table(scores, 0, rubric.total, bins=10, label="scores")
        + "</figure>",
        _statistics(scores, rubric.total),
        '<h2 id="questions">Questions</h2>',
        _questions(results, rubric),
        '<h2 id="functions-heading">Functions</h2>',
        '<p class="muted">How many submissions stand where on each function; open <em>who</em> for them.</p>',
        class_tables.functions_table(results),
        '<h2 id="misconceptions-heading">Misconceptions and other diagnoses</h2>',
        class_tables.diagnoses_table(results),
        '<h2 id="problems-heading">Problems</h2>',
        _problems(results),
        '<h2 id="similarity">Similar code</h2>',
        similarity_html.section(similarity, rubric.similarity, {result.submission: result for result in results}),
        '<h2 id="submissions-heading">Submissions</h2>',
        '<p class="muted">Click a column header (or press Enter on it) to sort by it; again for the other way.</p>',
        _submissions(results, rubric, similarity),
        '<h2 id="cases-heading">Cases, worst first</h2>',
        class_tables.cases_table(results),
        '<h2 id="facts">Grading run</h2>'
        + wide(
            '<table class="facts">'
            + "".join(f"<tr><td>{esc(key)}</td><td>{esc(value)}</td></tr>" for key, value in facts.items())
            + "</table>",
            "Grading run",
        ),
    ]
    return page(f"{LAB_NAME} class report", "\n".join(body), SORT_SCRIPT)
