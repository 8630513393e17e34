"""Adjustments as data: ``OUT/overrides.csv``, a file of score overrides an instructor keeps beside a
graded batch, applied by every class step (``local/classwork.py: update``), so that they survive a
regrade, a rescore and a merge, and reach everything grades go to (grade.json, results.json, the
feedback, grades.csv, the class report, the LMS exports).

The first line names the columns ``student, target, points, delta, reason, who``; one line an
adjustment::

    student,target,points,delta,reason,who
    ada@example.edu,<function>: hidden edge cases,3,,regrade request: the spec was ambiguous,TA Lin
    S01234,q2,,-1,late resubmission agreed,Prof. Ng

``student`` is a submission's id, or a student's email or SID (every submission of theirs);
``target`` a check as the results name it (``<function>: <what it checks>``) or a question id (its
checks in the rubric's order take the change, each within 0 and its points); exactly one of
``points`` (the new score) and ``delta`` (the change); ``reason`` and ``who`` are required. An
unknown student or target, a line without a reason, or a score outside 0 and the maximum is an
``InputError`` naming the line: nothing of the file is applied then.

Applying is idempotent: a result keeps the adjustments applied to it (``Adjustment``: the check, its
score before and after, why, who; the feedback lists them); the next class step first puts back each
check still as the adjustment left it, then applies the file again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

from autograder.errors import InputError
from autograder.grading.results import Adjustment, CheckResult, SubmissionResult, points

FILE = "overrides.csv"
COLUMNS = ("student", "target", "points", "delta", "reason", "who")
MAX_BYTES = 4 << 20


@dataclass(frozen=True)
class Override:
    """One line of the file."""

    line: int
    student: str
    target: str
    value: float
    is_delta: bool
    reason: str
    who: str


def _fail(source: str, line: int | None, problem: str) -> NoReturn:
    where = f"{source}, line {line}" if line else source
    raise InputError(f"overrides file {where}: {problem}; nothing of it was applied")


def not_beside(paths: Sequence[str | Path], out: Path) -> None:
    """``InputError`` when a PATH to grade (say a Gradescope export) holds an overrides file that is not
    the batch's own (``OUT/overrides.csv``): the overrides apply to a graded batch, never to an export,
    and one left there would be ignored without a word."""
    own = (Path(out) / FILE).resolve()
    for path in paths:
        found = Path(path) / FILE
        if found.is_file() and found.resolve() != own:
            raise InputError(
                f"{found} would not be applied: the overrides apply to a graded batch, in its --out folder; move it to "
                f"{Path(out) / FILE} and grade again (on Gradescope or PrairieLearn, change grades with their own "
                "tools); nothing was graded"
            )


def read(path: Path) -> list[Override]:
    """The overrides in ``path``; ``InputError`` naming the line of the first mistake."""
    source = str(path)
    try:
        data = Path(path).read_bytes()[: MAX_BYTES + 1]
    except OSError as error:
        _fail(source, None, f"cannot be read ({error.strerror})")
    if len(data) > MAX_BYTES:
        _fail(source, None, f"is larger than {MAX_BYTES >> 20} MiB: is it really a list of overrides?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        _fail(source, None, "is not UTF-8 text: save the file as UTF-8 CSV")
    return read_text(text, source)


def read_text(text: str, source: str = FILE) -> list[Override]:
    """The overrides in the CSV ``text`` (``source`` names it in messages)."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = [cell.strip().casefold() for cell in rows[0]] if rows else []
    if any(column not in header for column in COLUMNS):
        _fail(source, 1, f"the first line must name the columns {','.join(COLUMNS)}")
    found = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {
            column: (row[header.index(column)] if header.index(column) < len(row) else "").strip() for column in COLUMNS
        }
        for column in ("student", "target", "reason", "who"):
            if not cells[column]:
                _fail(source, number, f"{column} is empty: every adjustment says whose, what, why and who made it")
        if bool(cells["points"]) == bool(cells["delta"]):
            _fail(source, number, "give exactly one of points (the new score) and delta (the change)")
        written = cells["points"] or cells["delta"]
        try:
            value = float(written)
        except ValueError:
            _fail(source, number, f"{written!r} is not a number of points")
        if value != value or value in (float("inf"), float("-inf")):
            _fail(source, number, f"{written!r} is not a number of points")
        found.append(
            Override(
                line=number,
                student=cells["student"],
                target=cells["target"],
                value=value,
                is_delta=bool(cells["delta"]),
                reason=cells["reason"],
                who=cells["who"],
            )
        )
    return found


def _key(value: str) -> str:
    return value.strip().casefold()


def _matches(override: Override, result: SubmissionResult) -> bool:
    wanted = _key(override.student)
    return wanted == _key(result.submission) or any(
        wanted in (_key(student.email), _key(student.sid)) for student in result.students if wanted
    )


def undone(result: SubmissionResult) -> SubmissionResult:
    """``result`` without the adjustments applied to it (a check changed since, by a rescore, is kept)."""
    checks = list(result.checks)
    for adjustment in reversed(result.adjustments):
        for index, check in enumerate(checks):
            if check.name == adjustment.check and abs(check.score - adjustment.after) < 1e-9:
                checks[index] = replace(check, score=adjustment.before)
    return replace(result, checks=tuple(checks), adjustments=())


def _changed(check: CheckResult, score: float, override: Override) -> tuple[CheckResult, Adjustment]:
    adjustment = Adjustment(check=check.name, before=check.score, after=score, reason=override.reason, who=override.who)
    return replace(check, score=score), adjustment


def _apply(result: SubmissionResult, override: Override, source: str) -> SubmissionResult:
    checks = list(result.checks)
    named = [i for i, check in enumerate(checks) if check.name == override.target]
    question = [i for i, check in enumerate(checks) if check.question == override.target]
    chosen = named or question
    if not chosen:
        known = sorted({check.question for check in checks}) + sorted(check.name for check in checks)
        _fail(
            source,
            override.line,
            f"{override.target!r} is neither a check nor a question of {result.submission}: use one of "
            f"{', '.join(known[:8])}, ...",
        )
    current = sum(checks[i].score for i in chosen)
    most = sum(checks[i].max_score for i in chosen)
    change = override.value if override.is_delta else override.value - current
    if not -1e-9 <= current + change <= most + 1e-9:
        _fail(
            source,
            override.line,
            f"{override.target} of {result.submission} would score {points(current + change)}, outside 0 and "
            f"{points(most)}",
        )
    made = list(result.adjustments)
    for index in chosen:  # in the rubric's order: each check takes what it can of the change
        check = checks[index]
        score = min(max(check.score + change, 0.0), check.max_score)
        change -= score - check.score
        if abs(score - check.score) > 1e-12:
            checks[index], adjustment = _changed(check, round(score, 4), override)
            made.append(adjustment)
    return replace(result, checks=tuple(checks), adjustments=tuple(made))


def apply(
    results: Sequence[SubmissionResult], overrides: Sequence[Override], source: str = FILE
) -> list[SubmissionResult]:
    """Every result with the overrides applied afresh (those applied before undone first); ``InputError``
    for an override naming no submission or no check of one (nothing is applied then)."""
    fresh = [undone(result) if result.adjustments else result for result in results]
    for override in overrides:
        hit = [i for i, result in enumerate(fresh) if _matches(override, result)]
        if not hit:
            _fail(source, override.line, f"{override.student!r} is no submission, email or SID of the batch")
        for index in hit:
            fresh[index] = _apply(fresh[index], override, source)
    return fresh
