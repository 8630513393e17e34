"""The written analysis's points (``grading/analysis/points.py``): grading.yml's ``analysis:``
section as a value, and the rule from checked claims to points, apart from the code's total."""

from __future__ import annotations

import pytest

from autograder import paths
from autograder.grading import rubric
from autograder.grading.analysis.facts import Verdict
from autograder.grading.analysis.points import AnalysisPoints
from autograder.labkit.load import default as default_lab

SECTION = "analysis:\n  claims: 2\n  claim_points: 2\n  prose_points: 4\n"


def verdicts(*holds: bool) -> list[Verdict]:
    return [
        Verdict(number=n, line=n, query=str(n), measure="AP", problems=() if held else ("wrong",))
        for n, held in enumerate(holds, start=1)
    ]


#: id: (points, the claims' verdicts, the claims' score)
SCORES = {
    "both-hold": (AnalysisPoints(), (True, True), 4.0),
    "one-refused": (AnalysisPoints(), (True, False), 2.0),
    "none": (AnalysisPoints(), (), 0.0),
    "beyond-the-count-ignored": (AnalysisPoints(), (False, True, True), 2.0),
    "one-claim-counts": (AnalysisPoints(claims=1, claim_points=3.0), (True, True), 3.0),
}


@pytest.mark.parametrize(("points", "holds", "score"), SCORES.values(), ids=SCORES.keys())
def test_counted_claims_that_hold_score(points, holds, score):
    """Does each of the first `claims` claims that holds earn claim_points, and no other claim?"""
    assert points.claims_score(verdicts(*holds)) == score


def test_the_analysis_changes_no_code_grade():
    """Is the rubric's digest (what a code grade is stored under) the same with or without the
    analysis section or with other points, and its total the code's alone?"""
    text = paths.RUBRIC.read_text(encoding="utf-8")
    assert SECTION in text
    with_it = rubric.parse(text, lab=default_lab())
    without = rubric.parse(text.replace(SECTION, ""), lab=default_lab())
    other = rubric.parse(text.replace("  prose_points: 4\n", "  prose_points: 10\n"), lab=default_lab())
    assert with_it.digest == without.digest == other.digest
    assert with_it.total == without.total == sum(check.points for check in with_it.checks)
    assert (without.analysis, other.analysis.total) == (None, 14.0)
