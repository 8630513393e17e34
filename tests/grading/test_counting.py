"""The line the feedback gives on how a check's points were counted: is its arithmetic the points
the check was awarded, for partial scores under each of the rubric's scorings?"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from autograder.grading import counting, scoring
from autograder.grading.results import CaseResult, CaseStatus
from autograder.lab.spec import CheckKind
from autograder.reports import feedback

P, F = CaseStatus.PASS, CaseStatus.FAIL


def _case(number: int, status: CaseStatus, *groups: str) -> CaseResult:
    return CaseResult(f"c{number}", "a case", True, status, groups=groups)


def _random(total: int, passed: int) -> list:
    return [(P, f"g{n}") for n in range(passed)] + [(F, f"g{n}") for n in range(passed, total)]


CASES = [
    # (id, possible points, cases as (status, groups), scoring, passed units, units)
    ("random-28-of-41-proportional", 4.0, _random(41, 28), "proportional", 28, 41),
    ("random-28-of-41-groups", 4.0, _random(41, 28), "groups", 28, 41),
    ("one-concept-missed", 12.0, [(P, "all", "a"), (P, "all", "a"), (F, "all", "b"), (P, "all")], "groups", 1, 3),
    ("edge-cases-each-their-own", 7.0, [(P,), (F,), (P,), (P,)], "groups", 3, 4),
    ("proportional-three-of-four", 5.0, [(P,), (F,), (P,), (P,)], "proportional", 3, 4),
]


@pytest.mark.parametrize(
    "possible, made, scoring_, passed, units", [row[1:] for row in CASES], ids=[row[0] for row in CASES]
)
def test_the_counted_line_s_arithmetic_is_the_points_awarded(possible, made, scoring_, passed, units):
    """Does the line say how many units shared the points and how many passed, and does its
    passed/units x points equal what scoring.points awarded?"""
    cases = tuple(_case(number, status, *groups) for number, (status, *groups) in enumerate(made))
    line = counting.explain(possible, cases, scoring_)
    found = re.search(r"(\d+)/(\d+) x ([\d.]+) = ([\d.]+)$", line)
    assert found, line
    shown_passed, shown_units, shown_possible, shown_score = found.groups()
    awarded = scoring.points(possible, cases, scoring_)
    assert (int(shown_passed), int(shown_units), float(shown_possible)) == (passed, units, possible), line
    assert float(Fraction(passed, units) * Fraction(possible)) == pytest.approx(awarded, abs=1e-4), line
    assert float(shown_score) == pytest.approx(awarded, abs=0.005), line


@pytest.mark.parametrize(
    "made, scoring_, words",
    [
        ([(P, "x"), (F, "y")], "all", "only if all 2 cases pass; 1 passed: 0"),
        ([(F, "all"), (F, "all"), (P, scoring.UNCHANGED)], "groups", "no answer was right, so none count: 0"),
    ],
    ids=["all-or-nothing", "no-answer-right"],
)
def test_the_counted_line_says_why_nothing_was_awarded(made, scoring_, words):
    """Where a check earned nothing though some cases passed, does the line say which rule made it 0?"""
    cases = tuple(_case(number, status, *groups) for number, (status, *groups) in enumerate(made))
    assert scoring.points(6.0, cases, scoring_) == 0.0
    assert counting.explain(6.0, cases, scoring_).endswith(words)


def test_the_feedback_leaves_the_line_out_where_a_note_set_the_points():
    """Where something beside the cases set the points (no credit for library use), does the
    feedback leave the counting line out instead of showing arithmetic that did not score?"""
    cases = (_case(0, P, "a"), _case(1, F, "b"))
    made = lambda note, score: feedback.CheckView(
        feedback.CheckResult(
            "f: random cases", "q1", "f", CheckKind.RANDOM, 4.0, score, "visible", cases, note=note, scoring="groups"
        ),
        (),
        (),
        (),
        None,
    )
    assert made("", 2.0).counted.endswith("1/2 x 4 = 2") and made("imports ir_measures", 0.0).counted == ""
