"""A submission's feedback as a self-contained HTML page (``feedback.html``).

Per question the points; per check its cases with their verdicts (public ones with the call,
the expected and the actual value; hidden ones with what was tested), the misconceptions
recognised, errors with the student's own traceback lines; for the Cranfield checks a plot
of the student's per-query values against the reference where they differ, and the queries.
Everything that came from the submission is escaped.
"""

from __future__ import annotations

from autograder.grading.results import CaseResult, CheckResult, SubmissionResult, points
from autograder.lab.spec import CheckKind
from autograder.reports import svg, text
from autograder.reports.html import esc, page

SHOWN_CASES = 40


def _value(value) -> str:
    return "" if value is None else esc(text.value_text(value).strip())


def _case_row(case: CaseResult) -> str:
    mark = '<span class="pass">✓</span>' if case.passed else '<span class="fail">✗</span>'
    if case.public:
        what = f"<code>{esc(case.call or case.description)}</code>"
        if case.call and case.description:
            what += f'<br><span class="muted">{esc(case.description)}</span>'
        expected, actual = _value(case.expected), _value(case.actual)
    else:  # the student view has stripped what a hidden case may not show
        what = f"hidden case: {esc(case.description)}"
        expected = actual = '<span class="muted">hidden</span>'
        if case.expected is not None:
            expected = _value(case.expected)
    detail = esc(case.message)
    if case.traceback:
        detail += f"<pre>{esc(chr(10).join(case.traceback))}</pre>"
    if not case.passed and not case.public and not detail:
        detail = esc(case.status.words)
    if case.hint:
        detail += f'<br><span class="muted">hint: {esc(case.hint)}</span>'
    return f"<tr><td>{mark}</td><td>{what}</td><td>{expected}</td><td>{actual}</td><td>{detail}</td></tr>"


def _cases_table(check: CheckResult) -> str:
    failing = [case for case in check.cases if not case.passed]
    passing = [case for case in check.cases if case.passed]
    rows = [_case_row(case) for case in failing[:SHOWN_CASES]]
    more = len(failing) - SHOWN_CASES
    html = ""
    if rows:
        html += (
            "<table><thead><tr><th></th><th>case</th><th>expected</th><th>yours</th><th>verdict</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>"
        )
    if more > 0:
        html += f'<p class="muted">... and {more} more failing cases.</p>'
    if passing:
        names = ", ".join(esc(case.description or case.id) for case in passing[:60] if case.description)
        html += (
            f"<details><summary>{len(passing)} case{'s' if len(passing) != 1 else ''} passed</summary>"
            f'<p class="muted">{names or "(per-query cases)"}</p></details>'
        )
    return html


def _cranfield(check: CheckResult) -> str:
    failing = [case for case in check.cases if not case.passed]
    if not failing:
        return ""
    differing = [
        (case.expected, case.actual, case.id.replace("cranfield-", ""))
        for case in failing
        if isinstance(case.expected, (int, float))
        and isinstance(case.actual, (int, float))
        and not isinstance(case.actual, bool)
    ]
    queries = sorted({case.id.rsplit("-", 1)[-1] for case in failing}, key=lambda q: (len(q), q))
    html = (
        f"<p>{len(failing)} of {len(check.cases)} per-query values differ from ir_measures' (queries: "
        f"{esc(', '.join(queries))}).</p>"
    )
    if differing:
        html += (
            "<figure>"
            + svg.scatter(differing, x_label="ir_measures", y_label="your value")
            + "<figcaption>Your value against ir_measures' for the queries that differ "
            "(on the dashed line they would agree).</figcaption></figure>"
        )
    return html


def _diagnoses(check: CheckResult, shown: set) -> str:
    html = ""
    for item in check.diagnoses:
        key = (item.id, item.function)
        if key in shown:
            html += f'<p class="muted">Diagnosis: {esc(item.title)} (see above).</p>'
            continue
        shown.add(key)
        html += (
            f'<div class="diagnosis"><strong>Diagnosis: {esc(item.title)}.</strong> '
            f"{esc(item.explanation)} <em>See the notes: {esc(item.notes)}.</em></div>"
        )
    return html


def render(result: SubmissionResult, titles: dict | None = None) -> str:
    """The whole feedback page."""
    result = result.student_view()
    titles = titles or {}
    who = ", ".join(student.name for student in result.students if student.name)
    body = [
        f"<h1>Lab 05 feedback: {esc(result.submission)}{' (' + esc(who) + ')' if who else ''}</h1>",
        f"<p><strong>Score: {points(result.score)} / {points(result.max_score)}</strong> "
        f'<span class="badge">{esc(result.status)}</span></p>',
    ]
    if result.problems:
        body.append(
            "<h2>Problems with your submission</h2><ul>"
            + "".join(f"<li><pre>{esc(problem)}</pre></li>" for problem in result.problems)
            + "</ul>"
        )
    shown: set = set()
    for question, visible, earned, possible in result.visible_by_question():
        body.append(
            f'<h2 id="{esc(question)}">{esc(question)}: {esc(titles.get(question, ""))} '
            f"({points(earned)} / {points(possible)})</h2>"
        )
        for check in visible:
            state = "pass" if check.score >= check.max_score else "fail"
            body.append(
                f'<h3><span class="{state}">{"✓" if state == "pass" else "✗"}</span> {esc(check.name)} '
                f'<span class="badge {state}">{points(check.score)} / {points(check.max_score)}</span></h3>'
                f'<p class="muted">{check.passed}/{len(check.cases)} cases passed</p>'
            )
            if check.note:
                body.append(f'<p class="fail">{esc(check.note)}</p>')
            body.append(_diagnoses(check, shown))
            body.append(_cranfield(check) if check.kind == CheckKind.CRANFIELD else _cases_table(check))
    if result.output:
        body.append(f"<h2>What your code printed</h2><pre>{esc(result.output[:4000])}</pre>")
    return page(f"Lab 05 feedback: {result.submission}", "\n".join(body))
