"""A submission's feedback as a self-contained HTML page (``feedback.html``): the content of
``reports/feedback.py``, as feedback.md has it, with the passing checks and the failing cases past
the first few folded in ``<details>``, and for the Cranfield checks a plot of the student's
per-query values against ir_measures' where they differ. In a local batch the page links back to
the class report. Everything that came from the submission is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping

from autograder.grading.results import Diagnosis, FunctionState, SubmissionResult, points
from autograder.lab.spec import LAB_NAME
from autograder.reports import feedback, svg
from autograder.reports.feedback import CheckView, CranfieldView, Feedback, FunctionView, ShownCase
from autograder.reports.html import esc, mark, page, wide

STATE_CLASS = {FunctionState.FULL: "pass"}


def _pre(text: str) -> str:
    return f"<pre>{esc(text)}</pre>" if text.strip() else ""


def _case_row(case: ShownCase) -> str:
    what = f"<code>{esc(case.title)}</code>" if case.code else esc(case.title)
    expected = _pre(case.expected) if "\n" in case.expected else esc(case.expected)
    if case.hidden and not case.expected:
        expected = '<span class="muted">hidden</span>'
    actual = _pre(case.actual) if "\n" in case.actual else esc(case.actual)
    detail = "<br>".join(esc(note) for note in case.notes) + _pre("\n".join(case.traceback))
    if case.hint:
        detail += f'<br><span class="muted">hint: {esc(case.hint)}</span>'
    return f"<tr><td>{mark(False)}</td><td>{what}</td><td>{expected}</td><td>{actual}</td><td>{detail}</td></tr>"


def _table(cases: tuple[ShownCase, ...], label: str) -> str:
    if not cases:
        return ""
    rows = "".join(_case_row(case) for case in cases)
    return wide(
        '<table><thead><tr><th><span class="visually-hidden">result</span></th><th>case</th><th>expected</th>'
        f"<th>yours</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table>",
        label,
    )


def _cranfield(found: CranfieldView, label: str) -> str:
    queries = ", ".join(found.queries[: feedback.CRANFIELD_QUERIES])
    more = len(found.queries) - feedback.CRANFIELD_QUERIES
    html = (
        f"<p>{found.differ} of {found.total} per-query values differ from ir_measures'; queries: {esc(queries)}"
        + (f" and {more} more" if more > 0 else "")
        + ".</p>"
        + _table(found.first, f"{label}: the first failing queries")
    )
    if found.points:
        points = list(found.points)
        html += (
            "<figure>"
            + svg.scatter(points, x_label="ir_measures", y_label="your value")
            + "<figcaption>Your value against ir_measures' for the queries that differ "
            "(on the dashed line they would agree).</figcaption>"
            + svg.points_table(points, x_label="ir_measures", y_label="your value", label="query")
            + "</figure>"
        )
    return html


def _check(view: CheckView) -> str:
    check = view.check
    html = (
        f"<h3>{mark(False)} {esc(check.name)} "
        f'<span class="badge fail">{points(check.score)} / {points(check.max_score)}</span></h3>'
        f'<p class="muted">{esc(view.tally)}</p>'
        + (f'<p class="muted">{esc(view.counted)}</p>' if view.counted else "")
    )
    for item in view.repeated:
        html += f"<p>{mark(False)} {item.count} cases: {esc(item.message)}</p>"
        html += _pre("\n".join(item.traceback))
    if view.cranfield:
        html += _cranfield(view.cranfield, check.name)
    html += _table(view.shown, f"{check.name}: failing cases")
    if view.folded:
        folded = _table(view.folded, f"{check.name}: more failing cases")
        html += f"<details><summary>{len(view.folded)} more failing cases</summary>{folded}</details>"
    return html


def _diagnosis(item: Diagnosis) -> str:
    return (
        f'<div class="diagnosis"><strong>Diagnosis: {esc(item.title)}.</strong> '
        f"{esc(item.explanation)} <em>See the notes: {esc(item.notes)}.</em></div>"
    )


def _function(view: FunctionView) -> str:
    item = view.result
    html = (
        f'<section class="function" id="{esc(view.name)}"><h2>{esc(view.name)} '
        f'<span class="badge fail">{points(item.score)} / {points(item.max_score)}</span></h2>'
        f"<p>{mark(False)} <strong>{esc(view.headline)}</strong></p>"
    )
    html += "".join(_diagnosis(diagnosis) for diagnosis in view.diagnoses)
    html += "".join(_check(check) for check in view.failing)
    if view.passed:
        listed = "".join(
            f"<li>{esc(check.name)} ({points(check.score)} / {points(check.max_score)}, {len(check.cases)} cases)</li>"
            for check in view.passed
        )
        html += f"<details><summary>Passed: {len(view.passed)} check(s)</summary><ul>{listed}</ul></details>"
    return html + "</section>"


def _summary(found: Feedback) -> str:
    rows = []
    for question in found.questions:
        title = f"{question.question}: {question.title}" if question.title else question.question
        rows.append(
            f'<tr class="question"><th colspan="2">{esc(title)}</th>'
            f'<th class="num">{points(question.earned)} / {points(question.possible)}</th></tr>'
        )
        for view in question.functions:
            state = STATE_CLASS.get(view.state, "fail")
            name = f'<a href="#{esc(view.name)}">{esc(view.name)}</a>' if view.detailed else esc(view.name)
            quote = f": <code>{esc(view.quote)}</code>" if view.quote else ""
            rows.append(
                f'<tr class="function"><td class="nowrap">{mark(state == "pass")} {name}</td>'
                f'<td data-state="{esc(view.state)}">{esc(view.headline)}{quote}</td>'
                f'<td class="num">{points(view.result.score)} / {points(view.result.max_score)}</td></tr>'
            )
    return wide(f'<table id="summary"><tbody>{"".join(rows)}</tbody></table>', "Summary")


def back(report: str) -> str:
    """The link back to the class report ("" on a platform, where there is none)."""
    return f'<p class="back"><a href="{esc(report)}">← class report</a></p>' if report else ""


def sections(found: Feedback) -> list[str]:
    """The page's content below its heading: the score, lateness, problems, summary, details, output."""
    body = [
        f"<p><strong>Score: {points(found.score)} / {points(found.max_score)}</strong> "
        f'<span class="badge">{esc(found.status)}</span></p>'
    ]
    if found.late:
        body.append(f'<p id="lateness"><strong>Lateness:</strong> {esc(found.late)}.</p>')
    if found.grade is not None and found.grade != found.score:
        grade = f"{points(found.grade)} / {points(found.max_score)}"
        body.append(f"<p><strong>Grade after the late penalty: {grade}</strong></p>")
    body += [f'<div class="banner fail"><strong>{esc(banner)}</strong></div>' for banner in found.banners]
    if found.problems:
        body.append("<h2>Problems with your submission</h2>" + _pre("\n\n".join(found.problems)))
    if found.questions:
        body.append('<h2 id="summary-heading">Summary</h2>' + _summary(found))
    body += [_function(view) for view in found.details]
    if found.output:
        body.append(f"<h2>What your code printed</h2>{_pre(found.output[:4000])}")
    return body


def render(result: SubmissionResult, titles: Mapping[str, str] | None = None, report: str = "") -> str:
    """The whole feedback page; ``report``: the class report's address relative to the page (a
    local batch's), or "" (on a platform, where there is none)."""
    found = feedback.build(result, titles)
    who = f" ({esc(found.who)})" if found.who else ""
    body = [back(report), f"<h1>{LAB_NAME} feedback: {esc(found.submission)}{who}</h1>", *sections(found)]
    return page(f"{LAB_NAME} feedback: {found.submission}", "\n".join(part for part in body if part))
