"""Measures called in every way the contract allows (``autograder/labkit/call_forms.py``): the binding on
worked examples, the records' parameters against the reference's signatures, and graded in this process
(``tests/support/truth.py``): a function whose parameters are misnamed, reordered or positional-only loses
only the random check's group of every case; the reference keeps full marks."""

from __future__ import annotations

import inspect
import textwrap

import pytest

from autograder.grading import scoring
from autograder.lab.functions.registry import FUNCTIONS
from autograder.labkit.call_forms import FORMS, bind
from autograder.labkit.case import Case
from autograder.labkit.kinds import CheckKind
from autograder.paths import solution_file
from tests.support import truth

P_AT_K = ("ranking", "judgments", "k", "rel")

BINDINGS = [
    # (id, parameters, args, kwargs, form, (args, kwargs, partial) sent)
    ("own-form-unchanged", P_AT_K, (["a"], {"a": 1}), {"k": 2}, "", ((["a"], {"a": 1}), {"k": 2}, False)),
    ("keywords-name-all", P_AT_K, (["a"], {"a": 1}), {"k": 2}, "keywords",
     ((), {"ranking": ["a"], "judgments": {"a": 1}, "k": 2}, False)),
    ("positional-in-order", P_AT_K, (["a"], {"a": 1}), {"k": 2, "rel": 3}, "positional",
     ((["a"], {"a": 1}, 2, 3), {}, False)),
    ("positional-stops-at-a-default", ("ranking", "judgments", "k", "gain"), (["a"], {}), {"gain": "exp"},
     "positional", ((["a"], {}), {"gain": "exp"}, False)),
    ("partial-binds-keywords", P_AT_K, (["a"], {}), {"k": 2}, "partial", ((["a"], {}), {"k": 2}, True)),
    ("n-left-out", ("scores_a", "scores_b", "n"), ({"1": 0.5}, {"1": 0.0}), {}, "keywords",
     ((), {"scores_a": {"1": 0.5}, "scores_b": {"1": 0.0}}, False)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("parameters", "args", "kwargs", "form", "sent"), [row[1:] for row in BINDINGS], ids=[row[0] for row in BINDINGS]
)
def test_a_case_is_bound_by_its_parameters_names(parameters, args, kwargs, form, sent):
    """Is a case's call, in each form, bound to the parameters' names and positions as the contract allows?"""
    assert bind(parameters, args, kwargs, form) == sent


REFUSED = [
    # (id, parameters, args, kwargs, form, what the message names)
    ("unknown-form", P_AT_K, ([], {}), {"k": 1}, "by-name", "unknown call form 'by-name'"),
    ("unknown-keyword", P_AT_K, ([], {}), {"cutoff": 1}, "keywords", "['cutoff']"),
    ("too-many-positional", ("ranking",), ([], {}), {}, "positional", "2 positional"),
]


@pytest.mark.parametrize(
    ("parameters", "args", "kwargs", "form", "named"), [row[1:] for row in REFUSED], ids=[row[0] for row in REFUSED]
)
def test_a_call_that_does_not_fit_is_refused_by_name(parameters, args, kwargs, form, named):
    """Does a form or an argument that does not fit the parameters raise ValueError naming what is wrong?"""
    with pytest.raises(ValueError, match="bind: ") as raised:
        bind(parameters, args, kwargs, form)
    assert named in str(raised.value)


SHOWN = [
    # (id, form, the call shown)
    ("own", "", "precision_at_k(['a'], {'a': 1}, k=2)"),
    ("keywords", "keywords", "precision_at_k(ranking=['a'], judgments={'a': 1}, k=2)"),
    ("positional", "positional", "precision_at_k(['a'], {'a': 1}, 2)"),
    ("partial", "partial", "functools.partial(precision_at_k, k=2)(['a'], {'a': 1})"),
]


@pytest.mark.parametrize(("form", "shown"), [row[1:] for row in SHOWN], ids=[row[0] for row in SHOWN])
def test_a_case_is_shown_as_it_is_called(form, shown):
    """Does the feedback show a case's call in the form it was made?"""
    case = Case(id="x", function="precision_at_k", description="d", args=(["a"], {"a": 1}), kwargs={"k": 2}, form=form)
    assert case.call_text(parameters=P_AT_K) == shown


def _reference() -> dict:
    return truth.load(solution_file("metrics.py").read_text(encoding="utf-8"), "reference_metrics_forms")


@pytest.mark.parametrize("function", [name for name, record in FUNCTIONS.items() if record.parameters])
def test_a_records_parameters_are_the_references(function):
    """Are the parameter names a record binds calls by exactly the reference's signature?"""
    assert FUNCTIONS[function].parameters == tuple(inspect.signature(_reference()[function]).parameters)


def test_every_function_with_random_cases_but_the_writer_names_its_parameters():
    """Does every function called with random cases (but the run writer) get its calls in the other forms?"""
    missing = [
        name
        for name, record in FUNCTIONS.items()
        if record.random_cases is not None and not record.writes_run_file and not record.parameters
    ]
    assert missing == []


WRONG_SIGNATURES = [
    # (id, function, its source: the reference's body under another signature)
    ("misnamed-judgments", "precision_at_k", """
        def precision_at_k(ranking, qrels, k, rel=1):
            return _reference_precision(ranking, qrels, k, rel)
        """),
    ("positional-only", "average_precision", """
        def average_precision(ranking, judgments, /, rel=1):
            return _reference_ap(ranking, judgments, rel)
        """),
    ("tuning-reordered", "ndcg_at_k", """
        def ndcg_at_k(ranking, judgments, gain="linear", k=10):
            return _reference_ndcg(ranking, judgments, k, gain)
        """),
    ("keyword-only-n", "largest_differences", """
        def largest_differences(scores_a, scores_b, *, n=2):
            return _reference_largest(scores_a, scores_b, n)
        """),
]  # fmt: skip

ALIASES = """
_reference_precision = precision_at_k
_reference_ap = average_precision
_reference_ndcg = ndcg_at_k
_reference_largest = largest_differences
"""


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("call-forms"))


def _random_check(graded, functions: dict, function: str):
    checks, contradicted = graded.grade(graded.answers(functions, {function}))
    check = next(c for c in checks if c.function == function and c.kind == CheckKind.RANDOM)
    return check, [c for c in checks if c.function == function and c is not check], contradicted


@pytest.mark.cranfield
@pytest.mark.parametrize(
    ("function", "source"), [row[1:] for row in WRONG_SIGNATURES], ids=[row[0] for row in WRONG_SIGNATURES]
)
def test_a_signature_the_contract_does_not_allow_loses_one_group_only(graded, function, source):
    """Does a function right in its arithmetic but with misnamed, reordered, positional-only or keyword-only
    parameters fail some call form, lose one group of its random check (every case's), and no false diagnosis?"""
    reference = solution_file("metrics.py").read_text(encoding="utf-8")
    functions = truth.load(reference + ALIASES + textwrap.dedent(source), f"forms_{function}")
    check, others, contradicted = _random_check(graded, functions, function)
    failing = [case for case in check.cases if not case.passed]
    assert failing and all(case.groups == (scoring.ALL,) and case.id.endswith(FORMS) for case in failing)
    assert any(f"{function}(" in case.call for case in failing)
    units = len({group for case in check.cases for group in case.groups})
    assert check.score == pytest.approx(check.max_score * (units - 1) / units, abs=1e-4)
    assert all(other.full for other in others)
    assert contradicted == []


@pytest.mark.cranfield
def test_the_reference_passes_every_call_form(graded):
    """Does the reference, called in every form on every function, keep full marks?"""
    functions = {**_reference(), **truth.load(solution_file("runs.py").read_text(encoding="utf-8"), "reference_runs")}
    checks, contradicted = graded.grade(graded.answers(functions, set(FUNCTIONS)))
    formed = [case for check in checks for case in check.cases if case.id.endswith(FORMS)]
    assert len(formed) == len(FORMS) * sum(1 for r in FUNCTIONS.values() if r.parameters)
    assert all(check.full for check in checks)
    assert contradicted == []


KEYWORD_MEASURE = """
def evaluate(run, qrels, measure):
    return {q: measure(ranking=run.get(q, []), judgments=j) for q, j in qrels.items()}
"""


@pytest.mark.cranfield
def test_an_evaluate_that_calls_measure_by_keyword_fails_a_public_case(graded):
    """Does an evaluate that calls ``measure(ranking=..., judgments=...)`` (the contract calls it
    positionally: a measure may name its parameters as it likes) fail a public case with a TypeError
    that says so, and lose points on evaluate only?"""
    reference = solution_file("metrics.py").read_text(encoding="utf-8")
    functions = {
        **truth.load(reference + textwrap.dedent(KEYWORD_MEASURE), "forms_evaluate_keywords"),
        **truth.load(solution_file("runs.py").read_text(encoding="utf-8"), "reference_runs"),
    }
    checks, contradicted = graded.grade(graded.answers(functions, set(FUNCTIONS)))
    lost = {check.function for check in checks if not check.full}
    assert lost == {"evaluate"}
    failing = [case for check in checks if check.function == "evaluate" for case in check.cases if not case.passed]
    assert any(case.public and case.raised == "TypeError" and "positional-only" in case.message for case in failing), [
        (case.raised, case.message) for case in failing[:3]
    ]
    assert contradicted == []
