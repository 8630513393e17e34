"""The same input answered differently when asked again (``grading/diagnosis/repeats.py``): said only when two
calls with the same arguments in the same form answered different values, never for answers that only differ
in type or by less than the tolerance, nor for different inputs or call forms."""

from __future__ import annotations

import pytest

from autograder.grading.diagnosis import observed, repeats
from autograder.grading.plan import PlannedCase
from autograder.labkit.case import Case
from autograder.labkit.kinds import CheckKind
from autograder.sandbox.channel import Outcome
from autograder.sandbox.child.values import encode

TOLERANCE = 1e-6

CALLS = [
    # (id, [(ranking, k, what the call answered[, its call form]), ...] in call order, expected value, said?)
    ("counter-kept", [(["a", "b"], 2, 0.5), (["a", "b"], 2, 0.25)], 0.5, True),
    ("same-answer-twice", [(["a", "b"], 2, 0.25), (["a", "b"], 2, 0.25)], 0.5, False),
    ("int-then-float", [(["a", "b"], 2, 1), (["a", "b"], 2, 1.0)], 1.0, False),
    ("within-tolerance", [(["a", "b"], 2, 0.5), (["a", "b"], 2, 0.5 + 1e-9)], 0.5, False),
    ("other-k", [(["a", "b"], 2, 0.5), (["a", "b"], 1, 1.0)], 0.5, False),
    ("other-ranking", [(["a", "b"], 2, 0.5), (["b", "a"], 2, 0.0)], 0.5, False),
    ("third-call-differs", [(["a"], 1, 1.0), (["b"], 1, 0.0), (["a"], 1, 0.0)], 1.0, True),
    ("nan-twice", [(["a"], 1, float("nan")), (["a"], 1, float("nan"))], 1.0, False),
    ("list-changes", [(["a"], 1, ["1", "2"]), (["a"], 1, ["2", "1"])], ["1", "2"], True),
    ("other-form", [(["a", "b"], 2, 0.5), (["a", "b"], 2, 0.25, "positional")], 0.5, False),
    ("same-form-again", [(["a"], 1, 1.0, "keywords"), (["a"], 1, 0.0, "keywords")], 1.0, True),
]


def _observed(calls, expected, public=True) -> list[observed.Observed]:
    cases = []
    for index, (ranking, k, answer, *form) in enumerate(calls):
        case = Case(
            f"c{index}", "precision_at_k", "a ranking", (ranking, {"a": 1}), {"k": k}, public=public, form="".join(form)
        )
        planned = PlannedCase("precision_at_k: random", CheckKind.RANDOM, case, expected, index)
        cases.append(observed.Observed(planned, Outcome("value", value=encode(answer)), tolerance=TOLERANCE))
    return cases


@pytest.mark.parametrize("calls, expected, said", [row[1:] for row in CALLS], ids=[row[0] for row in CALLS])
def test_is_an_answer_that_changes_between_calls_of_one_input_said(calls, expected, said):
    """Is "answers the same call differently" said exactly when two calls with the same arguments answered
    values that differ beyond the tolerance?"""
    found = repeats.diagnose("precision_at_k", "Part II", _observed(calls, expected))
    assert [d.id for d in found] == ([repeats.ID] if said else [])


def test_does_the_diagnosis_show_both_answers_of_public_calls_only():
    """Does the diagnosis show both answers when the two calls are public, and neither when they are hidden?"""
    calls = [(["a", "b"], 2, 0.5), (["a", "b"], 2, 0.25)]
    [public] = repeats.diagnose("precision_at_k", "Part II", _observed(calls, 0.5))
    [hidden] = repeats.diagnose("precision_at_k", "Part II", _observed(calls, 0.5, public=False))
    assert "0.5 first, 0.25 later" in public.explanation
    assert "0.25" not in hidden.explanation and "answered differently (one input" in hidden.explanation
