"""Feedback for the student, as text: what each check tested, what went wrong, what to do.

Public cases show the call, the expected and the actual value; hidden cases show what was
tested and the verdict, never the answer. Everything here reads the student view of a result
(``SubmissionResult.student_view``). Used for results.json's outputs and for ``feedback.md``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from autograder.grading.results import CaseResult, CaseStatus, CheckResult, SubmissionResult, points
from autograder.lab.spec import CheckKind

SHOWN_FAILURES = 6  # failing cases listed per check; the rest are counted
TROUBLE = (CaseStatus.ERROR, CaseStatus.TIMEOUT, CaseStatus.CRASH, CaseStatus.NOT_RUN)


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) >= 1e-4 or value == 0 else f"{value:.3e}"
    return repr(value)


def value_text(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(value)
    if isinstance(value, dict) and len(value) > 12:
        return "{" + ", ".join(f"{k!r}: {value_text(v)}" for k, v in list(value.items())[:12]) + ", ...}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and len(value) > 3 and " Q0 " in value[0]:
        return "\n      " + "\n      ".join(value)
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return repr(value)


def case_lines(case: CaseResult) -> list[str]:
    """A failing case as the student may see it."""
    if case.public:
        lines = [f"✗ {case.call or case.description}"]
        if case.status == CaseStatus.FAIL and case.expected is not None:
            lines.append(f"    expected: {value_text(case.expected)}")
            if case.actual is not None:
                lines.append(f"    got:      {value_text(case.actual)}")
        if case.message:
            lines.append(f"    {case.message}")
    else:  # the student view has stripped what a hidden case may not show
        lines = [f"✗ hidden case: {case.description} ({case.status.words})"]
        if case.expected is not None:
            lines.append(f"    expected: {value_text(case.expected)}")
        if case.message:
            lines.append(f"    {case.message}")
    lines += [f"    {line}" for line in "\n".join(case.traceback).splitlines()]
    if case.hint:
        lines.append(f"    hint: {case.hint}")
    return lines


def cranfield_summary(check: CheckResult) -> list[str]:
    """For a Cranfield check: how many queries differ, which, and the first few values."""
    failing = [case for case in check.cases if not case.passed]
    if not failing:
        return []
    queries = sorted({case.id.rsplit("-", 1)[-1] for case in failing}, key=lambda q: int(q) if q.isdigit() else 0)
    lines = [
        f"{len(failing)} of {len(check.cases)} per-query values differ from ir_measures; queries: "
        + ", ".join(queries[:30])
        + (" ..." if len(queries) > 30 else "")
    ]
    for case in failing[:3]:
        lines.append(f"✗ {case.description}: {case.message}")
    return lines


def check_text(check: CheckResult) -> str:
    """A check's output (of a student view): its verdict, the note, and the failing cases."""
    total = len(check.cases)
    lines = [f"{check.passed}/{total} cases passed" if total else "no cases were run"]
    if check.note:
        lines.append(check.note)
    failing = [case for case in check.cases if not case.passed]
    errors: dict[tuple, int] = {}
    for case in failing:
        if case.status in TROUBLE:
            errors[(case.status, case.message, case.traceback)] = (
                errors.get((case.status, case.message, case.traceback), 0) + 1
            )
    repeated = {key for key, count in errors.items() if count > 1}
    for status, message, traceback in repeated:
        lines.append(f"✗ {errors[(status, message, traceback)]} cases: {message}")
        lines += [f"    {line}" for line in "\n".join(traceback).splitlines()]
    failing = [case for case in failing if (case.status, case.message, case.traceback) not in repeated]
    if check.kind == CheckKind.CRANFIELD:
        lines += cranfield_summary(check) if not repeated else []
    else:
        for case in failing[:SHOWN_FAILURES]:
            lines += case_lines(case)
        if len(failing) > SHOWN_FAILURES:
            lines.append(f"... and {len(failing) - SHOWN_FAILURES} more failing cases")
    for diagnosis in check.diagnoses:
        lines.append(diagnosis.text())
    return "\n".join(lines)


def summary_text(result: SubmissionResult) -> str:
    """The top of the feedback (of a student view): score, problems with the files, what the code printed."""
    lines = [f"Score: {points(result.score)} / {points(result.max_score)}"]
    if result.problems:
        lines += ["", "Problems with your submission:"] + [f"- {problem}" for problem in result.problems]
    if result.output:
        lines += ["", "Your code printed (first lines):", result.output[:2000]]
    return "\n".join(lines)


def fenced(body: str, info: str = "text") -> list[str]:
    """``body`` in a Markdown code block whose fence no run of backticks in it can close."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", body, fence]


def markdown(result: SubmissionResult, titles: dict | None = None) -> str:
    """The student's feedback page as Markdown (``feedback.md``)."""
    result = result.student_view()
    titles = titles or {}
    who = ", ".join(student.name for student in result.students if student.name)
    lines = [f"# Lab 05 feedback: {result.submission}" + (f" ({who})" if who else ""), ""]
    lines += [f"**Score: {points(result.score)} / {points(result.max_score)}**", ""]
    if result.problems:
        lines += ["## Problems with your submission", ""]
        lines += [f"- {problem}".replace("\n", "\n  ") for problem in result.problems] + [""]
    diagnosed: set = set()
    for question, shown, earned, possible in result.visible_by_question():
        lines += [
            f"## {question}: {titles.get(question, '')} ({points(earned)} / {points(possible)})".replace(":  (", " ("),
            "",
        ]
        for check in shown:
            mark = "✓" if check.score == check.max_score else "✗"
            lines += [f"### {mark} {check.name} ({points(check.score)} / {points(check.max_score)})", ""]
            fresh = [d for d in check.diagnoses if (d.id, check.function) not in diagnosed]
            diagnosed.update((d.id, check.function) for d in check.diagnoses)
            lines += [f"> **{d.text()}**" for d in fresh] + ([""] if fresh else [])
            if check.score < check.max_score or check.note:
                lines += [*fenced(check_text(replace(check, diagnoses=()))), ""]
    if result.output:
        lines += ["## What your code printed", "", *fenced(result.output[:4000]), ""]
    return "\n".join(lines)
