"""One judged case of a function as the diagnoses see it: its inputs' features, the expected value,
the answer (its number, its type, what it raised), whether it failed, and the reference's answers
at k - 1, k + 1 and rel + 1 (computed when first asked for).

Every diagnosis is a statement about *all* of a function's judged cases, failing and passing alike
(``grading.diagnosis``): these are the cases it is checked against.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from autograder.grading import judge
from autograder.grading.results import CaseStatus, shown_error
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:
    from autograder.grading.plan import PlannedCase


class Observed:
    """One case whose call returned or raised: what the code did with its inputs."""

    def __init__(
        self,
        planned: PlannedCase,
        outcome: Outcome,
        neighbours: Callable[[], dict[str, Any]] = dict,
        *,
        tolerance: float,
    ) -> None:
        self.planned, self.outcome = planned, outcome
        self.tolerance = tolerance  # the lab's (``judge.close``)
        self.case = planned.case
        self.expected: Any = planned.expected  # the reference's answer, as the judge takes it
        self.features = planned.features
        self.public = bool(planned.case.public)
        self.failed = judge.verdict(outcome, planned.expected, tolerance=tolerance)[0] != CaseStatus.PASS
        self.wants_error = judge.wants_error(planned.expected)
        self.encoded: Any = outcome.value if outcome.status == OutcomeStatus.VALUE else None
        error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else None
        raised = error.get("type") if error is not None else None
        if raised is not None and not self.public:  # a hidden case's exception is named as its feedback names it
            raised = shown_error(str(raised), tuple(error.get("mro", ()) if error else ()))
        self.raised: str | None = raised
        self.type = self.encoded.get("type") if isinstance(self.encoded, dict) else None
        try:
            self.number: float | None = judge.number(self.encoded) if self.encoded is not None else None
        except judge.Unacceptable:
            self.number = None
        self._neighbours: Callable[[], dict[str, Any]] = neighbours
        self._known: dict[str, Any] | None = None

    @property
    def neighbours(self) -> dict[str, Any]:
        """The reference's answers at k - 1, k + 1 and rel + 1 (computed when first asked for)."""
        if self._known is None:
            self._known = self._neighbours()
        return self._known

    @property
    def numeric(self) -> bool:
        """Is a number due (not an error, a list or a mapping)?"""
        return isinstance(self.expected, (int, float)) and not isinstance(self.expected, bool)

    @property
    def direction(self) -> str | None:
        """``"high"`` or ``"low"``: a wrong number above or below the expected one (None otherwise)."""
        if not self.failed or not self.numeric or self.number is None or math.isnan(self.number):
            return None
        return "high" if self.number > self.expected else "low" if self.number < self.expected else None

    @property
    def special(self) -> str | None:
        """``nan``, ``inf`` or ``-inf`` when the answer is one of them (a float the judge cannot compare)."""
        value = (self.encoded or {}).get("value") if self.type == "float" else None
        return value if isinstance(value, str) and value in ("nan", "inf", "-inf") else None

    def equals(self, value: object) -> bool:
        """Is the answer ``value`` (with the grader's tolerance; NaN equals NaN)?"""
        if self.encoded is None:
            return False
        if value is None:
            return self.type == "None"
        if isinstance(value, float) and math.isnan(value):
            return self.special == "nan"
        return judge.difference(self.encoded, value, tolerance=self.tolerance) is None

    def label(self) -> str:
        return self.case.label()


def _none(planned: PlannedCase) -> dict[str, Any]:
    return {}


def judged(
    planned_cases: Sequence[PlannedCase],
    outcomes: Sequence[Outcome],
    neighbours: Callable[[PlannedCase], dict[str, Any]] = _none,
    *,
    tolerance: float,
) -> list[Observed]:
    """The cases whose call returned or raised (``neighbours(planned)``: its reference neighbours;
    ``tolerance``: the lab's)."""
    return [
        Observed(planned, outcomes[planned.call], functools.partial(neighbours, planned), tolerance=tolerance)
        for planned in planned_cases
        if judge.answered(outcomes[planned.call])
    ]
