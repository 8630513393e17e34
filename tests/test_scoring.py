"""Scoring a check's cases into its points: by groups of what they test (the default), in proportion,
or all or nothing; and scoring stored answers again when only the rubric's points changed."""

from __future__ import annotations

import pytest

from autograder.grading import rubric as rubrics
from autograder.grading import scoring
from autograder.grading.results import CaseResult, CaseStatus

P, F = CaseStatus.PASS, CaseStatus.FAIL


def _case(number: int, status: CaseStatus, *groups: str) -> CaseResult:
    return CaseResult(f"c{number}", "a case", True, status, groups=groups)


CASES = [
    # (id, cases as (status, groups), scoring, points of 12)
    ("all-pass-groups", [(P, "all", "a"), (P, "all", "b")], "groups", 12.0),
    ("one-concept-missed", [(P, "all", "a"), (P, "all", "a"), (F, "all", "b"), (P, "all")], "groups", 4.0),
    ("same-cases-in-proportion", [(P, "all", "a"), (P, "all", "a"), (F, "all", "b"), (P, "all")], "proportional", 9.0),
    ("all-or-nothing", [(P, "x"), (F, "y")], "all", 0.0),
    ("all-or-nothing-passed", [(P, "x"), (P, "y")], "all", 12.0),
    ("edge-cases-each-their-own", [(P,), (F,), (P,), (P,)], "groups", 9.0),
    ("a-rare-concept-costs-its-share", [(P, "all", "a")] * 9 + [(F, "all", "rare")], "groups", 4.0),
]


@pytest.mark.parametrize("made, scoring_, expected", [row[1:] for row in CASES], ids=[row[0] for row in CASES])
def test_a_check_s_points_come_from_its_cases_as_the_rubric_says(made, scoring_, expected):
    """Does each scoring turn the same cases into the points it promises: a missed concept costs its
    group's share (and every group it shares a failing case with), however few cases show it?"""
    cases = tuple(_case(number, status, *groups) for number, (status, *groups) in enumerate(made))
    assert scoring.points(12.0, cases, scoring_) == expected


def test_the_rubric_refuses_an_unknown_scoring():
    """Is a misspelt scoring an error naming the field and the choices?"""
    text = rubrics.paths.RUBRIC.read_text().replace(
        "allowed_imports: [numpy]", "allowed_imports: [numpy]\nscoring: groupz"
    )
    with pytest.raises(rubrics.RubricError, match="scoring: 'groupz' is not one of groups, proportional, all"):
        rubrics.parse(text)


def test_points_alone_do_not_change_what_is_run():
    """Do two rubrics differing only in points, visibility and scoring make the same calls (so stored
    answers are scored again, not graded again), and a changed kind of check other calls?"""
    text = rubrics.paths.RUBRIC.read_text()
    base = rubrics.parse(text)
    scored = rubrics.parse(
        text.replace(
            "{function: confusion_matrix, kind: edge, points: 2}",
            "{function: confusion_matrix, kind: edge, points: 1, visibility: hidden, scoring: all}",
        ).replace("total: 100", "total: 99")
    )
    other = rubrics.parse(text.replace("random_cases: 40", "random_cases: 30"))
    assert scored.digest != base.digest and scored.cases_digest == base.cases_digest
    assert other.cases_digest != base.cases_digest
