"""Bugs written from the contract and the notes by kind of mistake (``tests/fixtures/concept_bugs/contract_kinds.py``),
graded in this process (``tests/support/truth.py``): every one loses points, no diagnosis of any contradicts a
judged case (``tests/support/premises.py``), and each kind is told what it is: the answer's type, the exception's
input, another measure's value, the formula's quantities, the ideal ranking, the default. ``tools/concept_bugs.py``
prints the figures."""

from __future__ import annotations

import pytest

from autograder.lab import spec
from tests.fixtures.concept_bugs.contract_kinds import CONTRACT_BUGS
from tests.support import subs, truth
from tools.concept_bugs import function_of

pytestmark = pytest.mark.cranfield


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("contract-bugs"))


def _graded(graded, bug) -> tuple[list, list]:
    function = function_of(bug["source"])
    functions = truth.load(subs.with_function(spec.FUNCTIONS[function], bug["source"]), f"contract_{function}")
    checks, contradicted = graded.grade(graded.answers(functions, {function}))
    return [check for check in checks if check.function == function], contradicted


@pytest.mark.parametrize("bug", CONTRACT_BUGS, ids=[bug["id"] for bug in CONTRACT_BUGS])
def test_a_bug_from_the_contract_loses_points_and_is_never_explained_falsely(graded, bug):
    """Does a one-bug variant written from the contract lose points, with no diagnosis a judged case contradicts?"""
    checks, contradicted = _graded(graded, bug)
    assert not all(check.full for check in checks), "the bug passes every check"
    assert contradicted == []


TOLD = [
    # (bug id in contract_kinds.py, the diagnosis that says what kind of mistake it is)
    ("evaluate-returns-mean", "evaluate-returns-mean"),
    ("evaluate-returns-list", "evaluate-returns-values"),
    ("evaluate-int-keys", "shape-keys-type"),
    ("differences-returns-pairs", "differences-returns-pairs"),
    ("confusion-returns-dict", "confusion-returns-dict"),
    ("precision-returns-text", "shape-text-numbers"),
    ("confusion-returns-table", "confusion-as-table"),
    ("evaluate-returns-items", "evaluate-returns-pairs"),
    ("differences-returns-gaps", "differences-returns-values"),
    ("ap-unjudged-keyerror", "unjudged-key-error"),
    ("dcg-unjudged-keyerror", "unjudged-key-error"),
    ("ndcg-not-normalised", "ndcg-is-dcg"),
    ("recall-returns-bool", "shape-booleans"),
    ("differences-one-system-keyerror", "differences-lookup-keyerror"),
    ("precision-floor-division", "truncated-to-whole-number"),
    ("recall-int-truncated", "truncated-to-whole-number"),
    ("recall-any-relevant", "zero-or-one"),
    ("rr-computed-as-ap", "rr-is-ap"),
    ("precision-computed-as-recall", "precision-is-recall"),
    ("accuracy-computed-as-recall", "accuracy-tp-over-tp-fn"),
    ("accuracy-tp-over-n", "accuracy-tp-over-n"),
    ("accuracy-tp-over-tp-fp-fn", "accuracy-tp-over-tp-fp-fn"),
    ("ap-over-distinct-grades", "ap-over-distinct-grades"),
    ("rr-mean-over-relevant-ranks", "rr-mean-over-relevant-ranks"),
    ("dcg-linear-grade-plus-one", "gain-plus-one"),
    ("precision-grade-equals-rel", "relevance-equals-rel"),
    ("ndcg-ideal-unsorted", "ideal-unsorted"),
    ("ndcg-best-grade-every-rank", "ideal-best-grade-repeated"),
    ("differences-default-three", "default-n-3"),
    ("precision-default-rel-two", "default-rel-2"),
    ("dcg-default-gain-exp", "default-gain-exp"),
]


@pytest.mark.parametrize("bug_id, diagnosis_id", TOLD, ids=[row[0] for row in TOLD])
def test_a_bug_from_the_contract_is_told_its_kind(graded, bug_id, diagnosis_id):
    """Is a mistake of a kind read off the contract (the answer's type, an exception on an allowed input, another
    measure's value, a formula's quantities, the ideal ranking, a default) told what it is, not only "too low"?"""
    bug = next(bug for bug in CONTRACT_BUGS if bug["id"] == bug_id)
    checks, contradicted = _graded(graded, bug)
    shown = {d.id for check in checks if not check.full for d in check.diagnoses}
    assert diagnosis_id in shown, sorted(shown)
    assert contradicted == []
