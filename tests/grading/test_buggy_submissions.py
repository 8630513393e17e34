"""Realistic buggy submissions lose points in the right function's checks and nowhere else;
correct variants (numpy, other structure, full-precision runs) get full marks."""

import pytest

from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.support import buggy, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def _grade(folder, files: dict, rubric) -> dict:
    """{submission: result} for the submissions ``files`` names (name -> {file: source}), graded in one batch."""
    for name, replaced in files.items():
        subs.write(folder / "in" / name, replaced)
    summary = batch.grade_batch(
        [folder / "in"], folder / "out", jobs=2, progress=False, rubric_path=rubric(folder), lab=default_lab()
    )
    return {result.submission: result for result in summary.results}


@pytest.fixture(scope="module")
def graded_bugs(tmp_path_factory):
    """The buggy submissions, graded on the small rubric (``subs.small_rubric``: Lab 05 without the
    checks on Cranfield, their points given to each function's edge check): where a bug costs points
    is a claim about the functions' own checks, which every bug fails without Cranfield's."""
    files = {bug.id: {bug.file: subs.with_function(bug.file, bug.source)} for bug in buggy.BUGS}
    return _grade(tmp_path_factory.mktemp("buggy"), files, subs.small_rubric)


@pytest.fixture(scope="module")
def graded_variants(tmp_path_factory, cranfield):
    """The correct variants and the reference, graded on Lab 05's whole rubric: full marks on
    Cranfield's checks too (a full-precision run file, numpy's floats)."""
    files = {
        f"variant-{name}": {file: subs.with_function(file, source)} for name, (file, source) in buggy.VARIANTS.items()
    }
    return _grade(tmp_path_factory.mktemp("variants"), {**files, "reference": {}}, subs.test_rubric)


def test_suite_is_large_enough():
    """Are there at least 25 buggy submissions and 3 correct variants?"""
    assert len(buggy.BUGS) >= 25 and len(buggy.VARIANTS) >= 3
    assert len({bug.id for bug in buggy.BUGS}) == len(buggy.BUGS)


@pytest.mark.parametrize("bug", buggy.BUGS, ids=[bug.id for bug in buggy.BUGS])
def test_bug_loses_points_only_where_it_is(graded_bugs, bug):
    """Does the bug cost points in its own function(s) and nowhere else?"""
    result = graded_bugs[bug.id]
    assert result.status == "graded", result.problems
    scores = subs.function_scores(result)
    for function, (score, possible) in scores.items():
        if function in bug.loses:
            assert score < possible, f"{function} kept full marks ({score}/{possible})"
        else:
            assert score == possible, f"{function} lost points ({score}/{possible}) for a bug elsewhere"
    assert not any(flag.kind == "library" for flag in result.flags)


@pytest.mark.parametrize("name", sorted(buggy.VARIANTS) + ["reference"])
def test_correct_variant_gets_full_marks(graded_variants, name):
    """Does a correct submission written differently get every point?"""
    result = graded_variants[name if name == "reference" else f"variant-{name}"]
    failing = [
        (check.name, [case.message for case in check.cases if not case.passed][:2])
        for check in result.checks
        if check.score < check.max_score
    ]
    assert result.score == result.max_score == 100, failing
    assert result.problems == () and result.flags == ()


@pytest.mark.parametrize(
    "bug", [b for b in buggy.BUGS if b.misconception], ids=[b.id for b in buggy.BUGS if b.misconception]
)
def test_bug_is_diagnosed_by_name(graded_bugs, bug):
    """Does the feedback name the misconception behind the bug, on the checks that lost points?"""
    result = graded_bugs[bug.id]
    named = {shown.id for check in result.checks for shown in check.diagnoses}
    assert bug.misconception in named, named
    for check in result.checks:
        assert not check.diagnoses or check.score < check.max_score, check.name
        assert all(shown.function == check.function for shown in check.diagnoses)


@pytest.mark.parametrize("name", sorted(buggy.VARIANTS) + ["reference"])
def test_correct_variant_gets_no_diagnosis(graded_variants, name):
    """Is no misconception named for a correct submission?"""
    result = graded_variants[name if name == "reference" else f"variant-{name}"]
    assert all(check.diagnoses == () for check in result.checks)


def test_every_bug_names_a_known_misconception():
    """Does every buggy submission of the suite have its misconception in the library, but for the
    slips of Python listed (with their reason) as having none?"""
    from autograder.lab.misconceptions import catalogue as misconceptions

    assert all(bug.misconception in misconceptions.LIBRARY for bug in buggy.BUGS if bug.misconception)
    assert {bug.id for bug in buggy.BUGS if not bug.misconception} == set(buggy.UNNAMED)
