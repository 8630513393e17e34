"""Bugs written from the notes' concepts, not from the catalogue (``tests/fixtures/concept_bugs/bugs.py``),
graded in this process (``tests/support/truth.py``): every one loses points, no diagnosis of any contradicts
a judged case (``tests/support/premises.py``), and where a diagnosis names one of the notes' concepts, it is
a concept that governs the function. ``tools/concept_bugs.py`` prints the figures."""

from __future__ import annotations

import pytest

from autograder.grading.results import DiagnosisKind
from autograder.lab import concepts, spec
from tests.fixtures.concept_bugs.bugs import BUGS
from tests.support import subs, truth
from tools.concept_bugs import function_of, right_concept

pytestmark = pytest.mark.cranfield


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("concept-bugs"))


def _graded(graded, bug) -> tuple[list, list, str]:
    function = function_of(bug["source"])
    functions = truth.load(subs.with_function(spec.FUNCTIONS[function], bug["source"]), f"bug_{function}")
    checks, contradicted = graded.grade(graded.answers(functions, {function}))
    return [check for check in checks if check.function == function], contradicted, function


@pytest.mark.parametrize("bug", BUGS, ids=[bug["id"] for bug in BUGS])
def test_a_bug_from_the_notes_loses_points_and_is_never_explained_falsely(graded, bug):
    """Does a bug written from one of the notes' concepts lose points, with no diagnosis that a judged case
    contradicts and no concept named that does not govern its function?"""
    checks, contradicted, function = _graded(graded, bug)
    assert bug["concept"] in concepts.CONCEPTS
    assert not all(check.full for check in checks), "the bug passes every check"
    assert contradicted == []
    named = [d for check in checks for d in check.diagnoses if d.kind == DiagnosisKind.CONCEPT]
    governing = concepts.for_function(function)
    assert [d.id for d in named if not any(_names(d, concept) for concept in governing)] == []


def _names(diagnosis, concept) -> bool:
    """Does the diagnosis name ``concept`` (by its id, or its name and the notes' words)?"""
    return diagnosis.id == f"condition-concept-{concept.id}" or (
        f"({concept.name})" in diagnosis.explanation and concept.statement in diagnosis.explanation
    )


NAMED = [
    # (bug id): a diagnosis names the bug's own concept, or a misconception that concept lists
    "cm-fn-all-relevant",
    "p-grade-equals-rel",
    "recall-over-min-k-r",
    "ap-top-10",
    "ap-over-min-r-length",
    "dcg-discount-over-rank",
    "dcg-exp-half",
    "evaluate-skips-no-relevant",
    "rr-index-from-0-clamped",
]


@pytest.mark.parametrize("bug_id", NAMED)
def test_a_bug_from_the_notes_is_named_by_its_concept(graded, bug_id):
    """Is an unseen bug whose failing cases are exactly those where its concept decides named by that
    concept (the notes' words and part)?"""
    bug = next(bug for bug in BUGS if bug["id"] == bug_id)
    checks, _, _ = _graded(graded, bug)
    shown = [d for check in checks for d in check.diagnoses]
    assert any(right_concept(bug["concept"], d) for d in shown), [d.id for d in shown]
