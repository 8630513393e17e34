"""No diagnosis contradicts the cases it is shown for (issue 20): every single-operator mutant of the
reference (``tools/mutants.py``) and every form of every catalogued misconception is graded in this
process (trusted code: the plan's calls answered as the child answers them, ``tests/support/inprocess.py``),
and each diagnosis shown is re-checked against every judged case of its function by
``tests/support/premises.py``, which reads the answers and compares them itself."""

from __future__ import annotations

import random

import pytest

from autograder.lab import spec
from autograder.lab.misconceptions import catalogue
from autograder.sandbox.channel import Outcome
from autograder.sandbox.child.values import encode
from tests.support import truth
from tests.support.inprocess import as_submitted
from tools import mutants

pytestmark = pytest.mark.cranfield

WRITER = truth.WRITER
SAMPLE, SEED = 40, 20


def _compiles(mutant) -> bool:
    try:
        compile(mutant.source, mutant.id, "exec")
    except SyntaxError:
        return False
    return True


MUTANTS = [m for file in spec.GRADED_FILES for m in mutants.generate(file) if _compiles(m)]
FORMS = [
    (item.id, function, index)
    for item in catalogue.LIBRARY.values()
    for function, forms in item.variants.items()
    for index in range(len(forms) if isinstance(forms, tuple) else 1)
    if function != WRITER
]
RUN_FORMS = [
    (item.id, index)
    for item in catalogue.for_function(WRITER)
    for index in range(2 if item.id in ("run-ignores-k", "run-sorted-queries") else 1)
]


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("true-diagnoses"))


@pytest.fixture(scope="module")
def contradicted() -> dict[str, list[str]]:
    """Each mutant graded in this module (its id) -> what contradicts its diagnoses: the sampled
    mutants are among all of them, so whichever of the two tests comes second reads the first's."""
    return {}


def _form_functions(graded, misconception, function, index) -> dict:
    forms = catalogue.LIBRARY[misconception].variants[function]
    form = forms[index] if isinstance(forms, tuple) else forms
    return {**graded.solution["metrics.py"], function: as_submitted(function, form)}


@pytest.mark.parametrize("misconception, function, index", FORMS, ids=[f"{m}[{f}]{i}" for m, f, i in FORMS])
def test_no_diagnosis_of_a_variant_contradicts_its_cases(graded, misconception, function, index):
    """Answering as one form of a catalogued misconception does, is every diagnosis shown true of every case?"""
    assert graded.run(_form_functions(graded, misconception, function, index), {function}) == []


@pytest.mark.parametrize("misconception, index", RUN_FORMS, ids=[f"{m}{i}" for m, i in RUN_FORMS])
def test_no_diagnosis_of_a_run_variant_contradicts_its_files(graded, misconception, index):
    """Writing the files one form of a run writer's misconception writes, is every diagnosis shown true?"""
    item = catalogue.LIBRARY[misconception]
    outcomes = list(graded.right)
    for name, call in graded.submission.scenario_calls.items():
        scenario = graded.plan.scenarios[name]
        if scenario.raises and not item.arguments:
            continue
        table = list(item.variants[WRITER](scenario))[index]
        if isinstance(table, tuple):
            error = {"type": table[1], "mro": [table[1], "Exception"], "message": "", "traceback": []}
            outcomes[call] = Outcome("error", error=error)
            continue
        calls = item.searches(scenario)[index] if item.searches else [[t, scenario.k] for _, t in scenario.queries]
        text = "".join(" ".join(row) + "\n" for row in table)
        outcomes[call] = Outcome(
            "value", value={"type": "runfile", "text": text, "searches": calls, "returned": encode(None)}
        )
    assert graded.grade(outcomes)[1] == []


def _mutant_cases(mutant_list):
    return pytest.mark.parametrize("mutant", mutant_list, ids=[m.id for m in mutant_list])


@_mutant_cases(sorted(random.Random(SEED).sample(MUTANTS, SAMPLE), key=lambda m: m.id))
def test_no_diagnosis_of_a_sampled_mutant_contradicts_its_cases(graded, contradicted, mutant):
    """For a fixed sample of the reference's mutants, is every diagnosis shown true of every case?"""
    _check_mutant(graded, contradicted, mutant)


@pytest.mark.slow
@_mutant_cases(MUTANTS)
def test_no_diagnosis_of_any_mutant_contradicts_its_cases(graded, contradicted, mutant):
    """For every single-operator mutant of the reference, is every diagnosis shown true of every case?"""
    _check_mutant(graded, contradicted, mutant)


def _check_mutant(graded, contradicted, mutant):
    """Graded once per module: the same mutant's answers, diagnoses and their check are the same."""
    if mutant.id not in contradicted:
        functions = truth.load(mutant.source, f"mutant_{mutant.file[:-3]}")
        only = [function for function, file in spec.FUNCTIONS.items() if file == mutant.file]
        contradicted[mutant.id] = graded.run(functions, only)
    assert contradicted[mutant.id] == []
