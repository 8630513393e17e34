"""How a check's cases count towards its points: the one rule ``scoring.points`` applies and the
student's feedback states (``explain``), so the line a student reads is the arithmetic that scored.

``groups`` (the rubric's default): cases are grouped by what they test, each group passed only if
all its cases passed, the points shared between the groups; ``proportional``: the share of cases
passed; ``all``: every case or nothing. A check none of whose answers is right earns nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from autograder.labkit.case import RAISES

if TYPE_CHECKING:  # for types only
    from autograder.grading.results import CaseResult

UNCHANGED = "leaves the caller's arguments as they were"


def answers(case: CaseResult) -> bool:
    """Does the case judge an answer (not only that the call refused arguments the contract
    refuses, or left its arguments as they were)?"""
    refusal = isinstance(case.expected, dict) and set(case.expected) == {RAISES}
    return not refusal and case.groups != (UNCHANGED,)


@dataclass(frozen=True)
class Count:
    """What a check's points are shared between (``units``), how many of them passed, and why the
    share is void (``void``: no answer right)."""

    scoring: str
    units: int
    passed: int
    void: bool = False

    def points(self, possible: float) -> float:
        if self.void or not self.units:
            return 0.0
        if self.scoring == "all":
            return float(possible) if self.passed == self.units else 0.0
        return round(possible * self.passed / self.units, 4)


def count(cases: tuple[CaseResult, ...], scoring: str) -> Count:
    """The units a check's ``cases`` count as under ``scoring``, and how many passed."""
    if not cases:
        return Count(scoring, 0, 0)
    void = any(answers(case) for case in cases) and not any(case.passed and answers(case) for case in cases)
    if scoring in ("proportional", "all"):
        return Count(scoring, len(cases), sum(case.passed for case in cases), void)
    failed: dict[str, bool] = {}
    for case in cases:
        for group in case.groups or (case.id,):
            failed[group] = failed.get(group, False) or not case.passed
    return Count(scoring, len(failed), sum(not bad for bad in failed.values()), void)


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


def explain(possible: float, cases: tuple[CaseResult, ...], scoring: str) -> str:
    """One line on how the points were counted, e.g. "points: 4 shared by 41 cases, 28 passed:
    28/41 x 4 = 2.73"; its arithmetic is ``count(...).points(possible)``."""
    found = count(cases, scoring)
    score = _number(found.points(possible))
    if not found.units:
        return f"points: no cases were run: {score}"
    if found.void:
        return f"points: {_number(possible)}, but no answer was right, so none count: {score}"
    if found.scoring == "all":
        return f"points: {_number(possible)} only if all {found.units} cases pass; {found.passed} passed: {score}"
    units = "cases" if found.scoring == "proportional" else "groups of cases (one per thing tested, passed if all pass)"
    return (
        f"points: {_number(possible)} shared by {found.units} {units}, {found.passed} passed: "
        f"{found.passed}/{found.units} x {_number(possible)} = {score}"
    )
