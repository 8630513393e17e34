"""Feedback as Markdown: ``feedback.md``, and the text of results.json on Gradescope (rendered as
Markdown) and PrairieLearn. The content is ``reports/feedback.py``'s; everything a submission
wrote (values, messages, tracebacks, what it printed) goes inside code, which nothing in it can close,
its control characters shown as escapes; the students' names are text (``reports/untrusted.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from autograder.grading.results import CheckResult, Diagnosis, FunctionResult, FunctionState, SubmissionResult, points
from autograder.labkit.lab import Lab
from autograder.reports import feedback, untrusted
from autograder.reports.feedback import CheckView, Feedback, FunctionView, ShownCase, value_text

__all__ = ["check_text", "fenced", "markdown", "summary_text", "value_text"]

PAIRED = 60  # characters of two values shown on one line


def fenced(body: str, info: str = "text") -> list[str]:
    """``body`` in a Markdown code block whose fence no run of backticks in it can close, its
    control characters shown as escapes (lines and tabs kept)."""
    body = untrusted.visible(body, keep="\n\t")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", body, fence]


def inline(text: str, limit: int = 300) -> str:
    """``text`` as inline code on one line, whatever backticks it holds (control characters shown)."""
    text = untrusted.visible(" ".join(text.split()))
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}" if longest or text.startswith(" ") else f"{fence}{text}{fence}"


def _indented(label: str, value: str) -> list[str]:
    first, *rest = value.split("\n")
    return [f"    {label}{first}".rstrip()] + [f"        {line}" for line in rest]


def case_lines(case: ShownCase) -> list[str]:
    """A failing case, as plain lines (inside a code block)."""
    lines = [f"✗ {case.title}"]
    if case.expected and case.actual and len(case.expected) + len(case.actual) <= PAIRED and "\n" not in case.expected:
        lines.append(f"    expected: {case.expected}   yours: {case.actual}")
    else:
        lines += _indented("expected: ", case.expected) if case.expected else []
        lines += _indented("yours:    ", case.actual) if case.actual else []
    lines += [f"    {note}" for note in case.notes]
    lines += [f"    {line}" for line in "\n".join(case.traceback).splitlines()]
    if case.hint:
        lines.append(f"    hint: {case.hint}")
    return lines


def view_lines(view: CheckView) -> list[str]:
    """A check that lost points, as plain lines: the tally, repeated failures, failing cases."""
    lines = [view.tally, *([view.counted] if view.counted else [])]
    for item in view.repeated:
        lines.append(f"✗ {item.count} cases: {item.message}")
        lines += [f"    {line}" for line in "\n".join(item.traceback).splitlines()]
    if view.cranfield:
        found = view.cranfield
        queries = ", ".join(found.queries[: feedback.CRANFIELD_QUERIES])
        more = len(found.queries) - feedback.CRANFIELD_QUERIES
        lines.append(
            f"{found.differ} of {found.total} per-query values differ from ir_measures'; queries: {queries}"
            + (f" and {more} more" if more > 0 else "")
        )
        for case in found.first:
            lines += case_lines(case)
    for case in view.shown:
        lines += case_lines(case)
    if view.folded:
        lines.append(f"... and {len(view.folded)} more failing cases")
    return lines


def _mark(view: FunctionView) -> str:
    return "✓" if view.state == FunctionState.FULL else "✗"


def function_line(view: FunctionView, links: bool = True) -> str:
    """A function's line of the summary."""
    item = view.result
    name = f"[{view.name}](#{view.name})" if links and view.detailed else view.name
    line = f"{_mark(view)} {name} ({points(item.score)} / {points(item.max_score)}): {view.headline}"
    return line + (f": {inline(view.quote)}" if view.quote else "")


def _diagnosis(item: Diagnosis) -> str:
    return f"> **Diagnosis: {item.title}.** {item.explanation} *See the notes: {item.notes}.*"


def counterexample_lines(view: FunctionView) -> list[str]:
    """A function's smallest counterexample: what it is, then the call and both values as code."""
    found = view.counterexample
    if found is None:
        return []
    body = [found.call, *_indented("expected: ", found.expected), *_indented("yours:    ", found.actual)]
    lines = [f"**Smallest counterexample.** {found.intro}.", "", *fenced("\n".join(body)), ""]
    return lines + ([found.stopped_early, ""] if found.stopped_early else [])


def summary_lines(found: Feedback, links: bool = True) -> list[str]:
    """The first layer: the score, banners, problems, per question and function one line."""
    lines = [f"**Score: {points(found.score)} / {points(found.max_score)}**", ""]
    if found.late:
        lines += [f"**Lateness:** {found.late}.", ""]
    if found.grade is not None and found.grade != found.score:
        lines += [f"**Grade after the late penalty: {points(found.grade)} / {points(found.max_score)}**", ""]
    for banner in found.banners:
        lines += [f"> **{banner}**", ""]
    if found.adjustments:
        lines += ["## Adjustments", "", *(f"- {item}" for item in found.adjustments), ""]
    if found.problems:
        lines += ["## Problems with your submission", "", *fenced("\n\n".join(found.problems)), ""]
    if found.questions:
        lines += ["## Summary", ""]
    for question in found.questions:
        title = f"{question.question}: {question.title}" if question.title else question.question
        lines.append(f"- **{title}** ({points(question.earned)} / {points(question.possible)})")
        lines += [f"  - {function_line(view, links)}" for view in question.functions]
    return lines + ([""] if found.questions else [])


def function_lines(view: FunctionView, cases: bool = True) -> list[str]:
    """The second and third layers for one function: its state, diagnoses, failing checks, what passed."""
    item = view.result
    lines = [f"## {view.name}", "", f"✗ **{view.headline}** ({points(item.score)} / {points(item.max_score)})", ""]
    lines += [line for diagnosis in view.diagnoses for line in (_diagnosis(diagnosis), "")]
    lines += counterexample_lines(view)
    if not cases:
        return lines
    for check in view.failing:
        lines += [f"### ✗ {check.check.name} ({points(check.check.score)} / {points(check.check.max_score)})", ""]
        lines += [*fenced("\n".join(view_lines(check))), ""]
    if view.passed:
        passed = [f"{check.kind.label} ({points(check.score)} / {points(check.max_score)})" for check in view.passed]
        lines += [f"Passed: {'; '.join(passed)}.", ""]
    return lines


def _printed(output: str) -> list[str]:
    return ["## What your code printed", "", *fenced(output[:4000]), ""] if output else []


def markdown(result: SubmissionResult, titles: Mapping[str, str] | None = None, *, lab: Lab) -> str:
    """The student's feedback page as Markdown (``feedback.md``) on ``lab``."""
    found = feedback.build(result, titles, lab=lab)
    who = f" ({untrusted.markdown(found.who)})" if found.who else ""
    lines = [f"# {found.lab_title} feedback: {found.submission}{who}", "", *summary_lines(found)]
    for view in found.details:
        lines += function_lines(view)
    return "\n".join(lines + _printed(found.output))


def summary_text(
    result: SubmissionResult,
    titles: Mapping[str, str] | None = None,
    shown: Callable[[CheckResult], bool] = lambda check: True,
    *,
    lab: Lab,
) -> str:
    """The top of a platform's results (Markdown): the summary, and per function that lost points
    its state and diagnoses (its cases are in its checks' own texts, ``check_text``); ``lab``: the
    lab graded."""
    found = feedback.build(result, titles, shown, lab=lab)
    lines = summary_lines(found, links=False)
    for view in found.details:
        lines += function_lines(view, cases=False)
    return "\n".join(lines + _printed(found.output)).strip()


def check_text(check: CheckResult, lab: Lab) -> str:
    """One check's text (of a student view), as a platform shows it under the check's name: its
    failing cases, or one line when its function is not implemented, not importable or gets no credit
    (``lab``: the lab graded)."""
    view = feedback.function_view(FunctionResult(check.function, check.question, (check,)), lab)
    if check.full and not check.note:
        if len(check.cases) == 1:
            return "Its one case passed."
        return f"All {len(check.cases)} cases passed." if check.cases else "Full marks."
    if not view.detailed:
        return f"✗ **{check.function}: {view.headline}** (the summary above says more)"
    lines = fenced("\n".join(view_lines(feedback.check_view(check))))
    if check.diagnoses:
        lines += ["", f"Diagnosis of {check.function}: see the summary above."]
    return "\n".join(lines)
