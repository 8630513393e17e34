"""The misconception library, one variant at a time, without a sandbox: each wrong variant's
answers are recognised as that misconception, and the reference solution's match none."""

import pytest

from autograder.grading import plan as planning
from autograder.grading import reference, rubric
from autograder.grading.diagnosis import answers as diagnosis
from autograder.grading.diagnosis import run_files
from autograder.grading.results import CaseStatus
from autograder.grading.runfile_checks import RunFile
from autograder.lab import spec, variants
from autograder.lab.misconceptions import catalogue as misconceptions
from autograder.labkit.case import RAISES
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome
from autograder.sandbox.child.harness import encode

PAIRS = [(item.id, function) for item in misconceptions.LIBRARY.values() for function in item.variants]


@pytest.fixture(scope="module")
def planned(cranfield):
    built = planning.build(
        default_lab(), rubric.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    built.submission = built.for_submission("misconceptions")  # type: ignore[attr-defined]
    return built, built.submission.planned  # type: ignore[attr-defined]


def _outcomes(built, cases, answer_of):
    outcomes = [Outcome("not-run")] * len(built.submission.calls)
    for planned_case in cases:
        outcomes[planned_case.call] = answer_of(planned_case)
    return outcomes


def _as_outcome(kind, value):
    if kind == "raises":
        return Outcome("error", error={"type": value, "mro": [value, "Exception"], "message": "", "traceback": []})
    return Outcome("value", value=encode(list(value) if isinstance(value, tuple) else value))


def test_library_has_twenty_or_more_misconceptions():
    """Are at least 20 misconceptions known, each with a title, an explanation and a notes pointer?"""
    assert len(misconceptions.LIBRARY) >= 20
    for item in misconceptions.LIBRARY.values():
        assert item.title and item.explanation and item.notes and item.variants


def test_reference_matches_no_misconception(planned):
    """With the reference's answers, even asked about every function, is nothing diagnosed?"""
    built, cases = planned

    def right(planned_case):
        expected = planned_case.expected
        if isinstance(expected, dict) and set(expected) == {RAISES}:
            return _as_outcome("raises", expected[RAISES])
        return _as_outcome("value", expected)

    outcomes = _outcomes(built, cases, right)
    functions = set(spec.FUNCTIONS)
    assert diagnosis.diagnose(built, cases, outcomes, functions, _right_files(built)) == {}


def _right_files(built) -> dict:
    """Each scenario's file as the right writer leaves it (or its refusal of the arguments)."""
    return {name: _file(scenario, variants.rows(scenario), None) for name, scenario in built.scenarios.items()}


def _file(scenario, table, searches) -> RunFile:
    """What a writer leaves for ``scenario``: ``table`` (rows, or ("raises", class)), having called
    search_fn as ``searches`` says (default: as the contract says)."""
    if scenario.raises:
        table = (
            table if isinstance(table, list) and table is not variants.rows(scenario) else ("raises", scenario.raises)
        )
    if isinstance(table, tuple):
        return RunFile(None, [], f"raised {table[1]}", raised=(table[1], "Exception"), failed=CaseStatus.ERROR)
    return RunFile(table, run_files.right_calls(scenario) if searches is None else searches, None)


@pytest.mark.parametrize("misconception, function", PAIRS, ids=[f"{m}[{f}]" for m, f in PAIRS])
def test_each_variant_is_recognised(planned, misconception, function):
    """Answering every case of the function as the wrong variant does, is it named?"""
    built, cases = planned
    item = misconceptions.LIBRARY[misconception]
    files = {}
    if function == "write_run":
        files = _right_files(built)
        for name, scenario in built.scenarios.items():
            if scenario.raises and not item.arguments:
                continue
            index = -1 if misconception == "run-few-decimals" else 0
            searches = item.searches(scenario)[index] if item.searches else None
            files[name] = _file(scenario, list(item.variants["write_run"](scenario))[index], searches)
        outcomes = _outcomes(built, cases, lambda case: Outcome("not-run"))
    else:
        forms = item.variants[function]
        variant = forms[-1] if isinstance(forms, tuple) else forms

        def wrong(planned_case):
            if planned_case.case.function != function:
                return Outcome("not-run")
            return _as_outcome(*diagnosis._run(variant, planned_case.case, built.shared_job["tables"]))

        outcomes = _outcomes(built, cases, wrong)
    found = diagnosis.diagnose(built, cases, outcomes, {function}, files)
    named = {shown.id for shown_list in found.values() for shown in shown_list}
    assert misconception in named
