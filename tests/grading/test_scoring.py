"""Scoring a check's cases into its points: by groups of what they test (the default), in proportion,
or all or nothing; and scoring stored answers again when only the rubric's points changed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from autograder.grading import judge, scoring
from autograder.grading import rubric as rubrics
from autograder.grading.results import CaseResult, CaseStatus
from autograder.labkit.case import RAISES
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome, OutcomeStatus
from autograder.sandbox.child import values

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
    ("arguments-kept-but-no-answer-right", [(F, "all"), (F, "all"), (P, scoring.UNCHANGED)], "groups", 0.0),
    ("arguments-kept-but-no-answer-right-proportional", [(F,), (F,), (P, scoring.UNCHANGED)], "proportional", 0.0),
    ("arguments-kept-and-one-answer-right", [(P, "all"), (F, "all"), (P, scoring.UNCHANGED)], "groups", 6.0),
]


@pytest.mark.parametrize("made, scoring_, expected", [row[1:] for row in CASES], ids=[row[0] for row in CASES])
def test_a_check_s_points_come_from_its_cases_as_the_rubric_says(made, scoring_, expected):
    """Does each scoring turn the same cases into the points it promises: a missed concept costs its
    group's share (and every group it shares a failing case with), however few cases show it?"""
    cases = tuple(_case(number, status, *groups) for number, (status, *groups) in enumerate(made))
    assert scoring.points(12.0, cases, scoring_) == expected


def _refusal(number: int, status: CaseStatus) -> CaseResult:
    return CaseResult(f"r{number}", "must refuse", True, status, expected={RAISES: "ValueError"})


@pytest.mark.parametrize(
    "made, expected",
    [
        ([_refusal(0, P), _refusal(1, P), _case(2, F), _case(3, F)], 0.0),
        ([_refusal(0, P), _case(1, P), _case(2, F)], 8.0),
        ([_refusal(0, P), _refusal(1, P)], 12.0),
    ],
    ids=["refusals-alone-earn-nothing", "refusals-count-beside-a-right-answer", "a-check-of-refusals-only"],
)
def test_a_check_with_no_right_answer_earns_nothing(made, expected):
    """Does a check whose only passing cases are refusals (ValueError where the contract wants one)
    or the arguments-kept case earn nothing, as a function that always raises ValueError would,
    while those cases count as usual once an answer is right?"""
    assert scoring.points(12.0, tuple(made), "proportional") == expected


def _planned(function: str, call: int, expected):
    return SimpleNamespace(case=SimpleNamespace(function=function), expected=expected, call=call, check=function)


NONE = object()  # a call that returned None (a None in the table is a call not run)

CONSTANT = [
    # (id, answers given, right answers, no credit?)
    ("same-answer-to-different-questions", [0.0, 0.0, 0.0], [0.0, 0.5, 1.0], True),
    ("empty-list-always", [[], [], []], [[], ["1"], ["2"]], True),
    ("right-answers-that-happen-to-agree", [0.5, 0.5], [0.5, 0.5], False),
    ("answers-that-vary", [0.0, 0.25, 0.0], [0.0, 0.5, 1.0], False),
    ("one-call-only", [0.0], [1.0], False),
    ("the-calls-answered-agree", [0.5, 0.5, None], [0.5, 0.5, 1.0], False),
    ("none-always", [NONE, NONE, NONE], [0.0, 0.5, 1.0], True),
    ("generators-only-named", [(x for x in [0.0]), (x for x in [0.5]), (x for x in [1.0])], [0.0, 0.5, 1.0], False),
    ("sets-only-named", [{"1"}, {"2"}, {"3"}], [["1"], ["2"], ["3"]], False),
    ("lists-of-generators", [[iter([1])], [iter([2])], [iter([3])]], [[1], [2], [3]], False),
]


@pytest.mark.parametrize("given, right, none", [row[1:] for row in CONSTANT], ids=[row[0] for row in CONSTANT])
def test_an_answer_that_ignores_the_input_earns_nothing(given, right, none):
    """Does a function that returned the same answer to every call, while the right answers differ,
    get no credit (and a note that does not quote the answer, which code could make of a hidden
    input), and a function whose answers vary or whose right answers agree keep its cases' points,
    and so do answers the child could only name (generators, sets), which need not be the same?"""
    planned = [_planned("precision_at_k", number, value) for number, value in enumerate(right)]
    outcomes = [
        Outcome(OutcomeStatus.VALUE, values.encode(None if value is NONE else value))
        if value is not None
        else Outcome(OutcomeStatus.NOT_RUN)
        for value in given
    ]
    notes = scoring.constant_answers(planned, outcomes)
    assert ("precision_at_k" in notes) == none
    if none:
        assert "same answer" in notes["precision_at_k"] and repr(given[0]) not in notes["precision_at_k"]


def test_the_rubric_refuses_an_unknown_scoring():
    """Is a misspelt scoring an error naming the field and the choices?"""
    text = (
        default_lab()
        .place.rubric.read_text()
        .replace("allowed_imports: [numpy]", "allowed_imports: [numpy]\nscoring: groupz")
    )
    with pytest.raises(rubrics.RubricError, match="scoring: 'groupz' is not one of groups, proportional, all"):
        rubrics.parse(text, lab=default_lab())


def test_points_alone_do_not_change_what_is_run():
    """Do two rubrics differing only in points, visibility and scoring make the same calls (so stored
    answers are scored again, not graded again), and a changed kind of check other calls?"""
    text = default_lab().place.rubric.read_text()
    base = rubrics.parse(text, lab=default_lab())
    scored = rubrics.parse(
        text.replace(
            "{function: confusion_matrix, kind: edge, points: 2}",
            "{function: confusion_matrix, kind: edge, points: 1, visibility: hidden, scoring: all}",
        ).replace("total: 100", "total: 99"),
        lab=default_lab(),
    )
    other = rubrics.parse(text.replace("random_cases: 40", "random_cases: 30"), lab=default_lab())
    assert scored.digest != base.digest and scored.cases_digest == base.cases_digest
    assert other.cases_digest != base.cases_digest


@pytest.mark.parametrize(
    "outcome, imported, status",
    [
        (Outcome(OutcomeStatus.VALUE, values.encode(0.5)), True, CaseStatus.PASS),
        (Outcome(OutcomeStatus.VALUE, values.encode(0.25)), True, CaseStatus.FAIL),
        (Outcome(OutcomeStatus.ERROR, error={"type": "KeyError", "mro": ["KeyError"]}), True, CaseStatus.ERROR),
        (Outcome(OutcomeStatus.TIMEOUT, detail="took too long"), True, CaseStatus.TIMEOUT),
        (Outcome(OutcomeStatus.CRASH, detail="exit status 159"), True, CaseStatus.CRASH),
        (Outcome(OutcomeStatus.NOT_RUN, detail="after 3 crashes"), True, CaseStatus.NOT_RUN),
        (Outcome(OutcomeStatus.NOT_RUN, detail="its file did not import"), False, CaseStatus.NOT_IMPORTED),
    ],
    ids=["value right", "value wrong", "error", "timeout", "crash", "not run", "not imported"],
)
def test_each_outcome_of_a_call_is_one_case_status(outcome, imported, status):
    """Does each way a call can end in the sandbox (``OutcomeStatus``) become one ``CaseStatus``
    through ``judge.verdict``, and does ``judge.answered`` say a case is judged on the code exactly
    when its status says so (``CaseStatus.judged``)?"""
    got, _ = judge.verdict(outcome, 0.5, imported=imported, tolerance=default_lab().tolerance)
    assert got == status
    assert judge.answered(outcome) == got.judged
