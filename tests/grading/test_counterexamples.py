"""The smallest counterexample of a failing function (``grading/diagnosis/shrink.py``, driven through
the sandbox by ``grading/counterexamples.py``): small worked examples, the catalogue's variants and
the reference's mutants answered in this process (trusted code only), the search's start never a
hidden case, its driver fed answers that change, crash or hang; ``tests/end_to_end/test_counterexamples.py``
grades submissions in the real sandbox."""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import random
import statistics

import pytest

from autograder.grading import counterexamples, inputs
from autograder.grading.diagnosis import repeats, shrink, shrink_run
from autograder.grading.diagnosis.answers import same
from autograder.grading.results import CaseResult, CaseStatus, CheckResult, Counterexample, Status, SubmissionResult
from autograder.grading.vocabulary import Diagnosis
from autograder.labkit.case import Case
from autograder.labkit.kinds import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult
from autograder.sandbox.child.values import encode
from tests.support.inprocess import answer_call, as_submitted, fake_run
from tests.support.truth import Grader

pytestmark = pytest.mark.cranfield

TOY = ["D1", "D2", "D3", "D4", "D5"]  # the notes' toy ranking R N R N R

#: (id, function, a wrong implementation, the start case's args and kwargs, the counterexample's call)
WORKED = [
    (
        "p@k over the ranking's length",
        "precision_at_k",
        lambda r, j, k, rel=1: sum(j.get(d, 0) >= rel for d in r[:k]) / max(len(r[:k]), 1),
        ((TOY, {"D1": 1, "D3": 1, "D5": 1}), {"k": 10}),
        "precision_at_k(['a'], {'a': 1}, k=2)",
    ),
    (
        "AP over the relevant documents retrieved",
        "average_precision",
        lambda r, j, rel=1: (
            lambda hits: sum((n + 1) / (p + 1) for n, p in enumerate(hits)) / len(hits) if hits else 0.0
        )([p for p, d in enumerate(r) if j.get(d, 0) >= rel]),
        ((TOY, {"D1": 1, "D3": 1, "D5": 1, "D6": 1, "D7": 1}), {}),
        "average_precision(['a'], {'a': 1, 'b': 1})",
    ),
    (
        "recall ignoring rel (a grade lowered)",
        "recall_at_k",
        lambda r, j, k, rel=1: (
            sum(j.get(d, 0) >= 1 for d in r[:k]) / sum(g >= 1 for g in j.values())
            if any(g >= 1 for g in j.values())
            else 0.0
        ),
        ((["x", "y", "z"], {"x": 3, "y": 1, "z": 2, "w": 2}), {"k": 2, "rel": 2}),
        "recall_at_k(['a'], {'a': 1}, k=1, rel=2)",
    ),
    (
        "a repeated id counted twice (the collection's size lowered)",
        "confusion_matrix",
        lambda ret, rel, n: (lambda tp: (tp, len(ret) - tp, len(set(rel)) - tp, n - len(ret) - len(set(rel)) + tp))(
            sum(d in rel for d in ret)
        ),
        ((["a", "a", "b", "c"], ["a", "d"], 12), {}),
        "confusion_matrix(['a', 'a'], [], 1)",
    ),
    (
        "evaluate skipping a query the run lacks (nested mappings)",
        "evaluate",
        lambda run, qrels, measure: {q: measure(run[q], j) for q, j in qrels.items() if q in run},
        (
            (
                {"q1": ["d1", "d2"], "q2": ["d3"]},
                {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}},
                {"$measure": "ranking_length"},
            ),
            {},
        ),
        "evaluate({}, {'a': {}}, ranking_length)",
    ),
]


def _error(error: BaseException) -> dict:
    mro = [cls.__name__ for cls in type(error).__mro__ if cls.__module__ == "builtins"]
    return {"type": type(error).__name__, "mro": mro, "message": str(error)[:200], "traceback": []}


def _asking(function):
    """What ``function`` (trusted) does on a case, as the child would say it."""

    def ask(case: Case) -> Outcome:
        try:
            value = function(*[inputs.resolve(arg) for arg in case.args], **case.kwargs)
        except Exception as error:
            return Outcome(OutcomeStatus.ERROR, error=_error(error))
        return Outcome(OutcomeStatus.VALUE, value=encode(value))

    return ask


def _wrong(function, case: Case, lab) -> bool:
    """Is ``function``'s answer on ``case`` not the lab's right one? (Read here, not by the shrinker.)"""
    expected = lab.registry.answers(case.function, [case], inputs.resolve)[0]
    try:
        value = function(*[inputs.resolve(arg) for arg in case.args], **case.kwargs)
    except Exception as error:
        return not (isinstance(expected, dict) and expected.get("raises") == type(error).__name__)
    return not same(list(value) if isinstance(value, tuple) else value, expected, default_lab().tolerance)


@pytest.mark.parametrize("name, function, wrong, given, call", WORKED, ids=[row[0] for row in WORKED])
def test_worked_examples_shrink_to_their_smallest_case(name, function, wrong, given, call):
    """Does each worked example shrink to the expected smallest case, no larger than its start, on
    which the wrong implementation is still wrong?"""
    lab = default_lab()
    start = Case(id="worked", function=function, description=name, args=given[0], kwargs=given[1], public=True)
    found = shrink.run(start, shrink.Reference(lab, function), _asking(wrong))
    assert found is not None
    assert found.case.call_text() == call
    assert shrink.size(found.case) <= shrink.size(start)
    assert _wrong(wrong, found.case, lab)
    assert found.calls <= shrink.BUDGET and not found.stopped_early


#: (id, what the function answers on its n-th call: right, wrong, crash or hang)
HOSTILE = [
    ("right the second time", lambda n: "wrong" if n == 0 else "right"),
    ("right from the fourth call on", lambda n: "wrong" if n < 3 else "right"),
    ("crashes on its third call", lambda n: "crash" if n == 2 else "wrong"),
    ("hangs from its second call on", lambda n: "wrong" if n == 0 else "timeout"),
]


@pytest.mark.parametrize("name, script", HOSTILE, ids=[row[0] for row in HOSTILE])
def test_answers_that_change_crash_or_hang_give_no_counterexample(name, script):
    """Does a function whose answers change between calls, or that crashes or hangs while it is
    shrunk, get no counterexample (none is shown that did not fail again on its re-check)?"""
    lab = default_lab()
    start = Case(id="hostile", function="precision_at_k", description=name, args=(TOY, {"D1": 1}), kwargs={"k": 3})
    calls = []

    def ask(case: Case) -> Outcome:
        what = script(len(calls))
        calls.append(case)
        if what in ("crash", "timeout"):
            return Outcome(OutcomeStatus(what), detail="scripted")
        right = lab.registry.answers("precision_at_k", [case], inputs.resolve)[0]
        return Outcome(OutcomeStatus.VALUE, value=encode(right if what == "right" else right + 0.5))

    assert shrink.run(start, shrink.Reference(lab, "precision_at_k"), ask) is None
    assert len(calls) <= shrink.BUDGET


@pytest.mark.parametrize("budget", [3, 10, 25], ids=lambda budget: f"{budget} calls")
def test_a_search_stops_within_its_budget_and_says_so(budget):
    """Does a search asked on a long ranking stop within its budget of calls, say it stopped early,
    and still give a re-checked case no larger than its start?"""
    lab = default_lab()
    ranking = [f"d{i:03d}" for i in range(150)]
    start = Case(
        id="long", function="precision_at_k", description="", args=(ranking, {"d149": 1, "d003": 2}), kwargs={"k": 200}
    )
    wrong = WORKED[0][2]
    asked = []
    found = shrink.run(
        start, shrink.Reference(lab, "precision_at_k"), lambda case: asked.append(case) or _asking(wrong)(case), budget
    )
    assert len(asked) <= budget
    assert found is not None and found.stopped_early
    assert shrink.size(found.case) <= shrink.size(start) and _wrong(wrong, found.case, lab)


# ---------------------------------------------------------------- the catalogue and the mutants


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return Grader(cranfield, tmp_path_factory.mktemp("counterexamples"))


def _forms():
    from autograder.lab.misconceptions.catalogue import LIBRARY

    found = []
    for item in LIBRARY.values():
        for function, forms in item.variants.items():
            if function == "write_run":
                continue
            for index, form in enumerate(forms if isinstance(forms, tuple) else (forms,)):
                found.append((f"{item.id}[{function}]{index}", function, as_submitted(function, form)))
    return found


def _search_all(graded, functions: dict, only: set) -> list[tuple[str, Case, shrink.Shrunk | None]]:
    """Each function of ``only`` that fails a public case, its start case and what its search found,
    ``functions`` answering in this process."""
    plan, submission, lab = graded.plan, graded.submission, graded.plan.lab
    outcomes = graded.answers(functions, only)
    found = []
    for function, (_, start) in counterexamples.starts(plan, submission, outcomes).items():
        if function not in only:
            continue

        def ask(case: Case, function=function) -> Outcome:
            call = {"fn": function, "file": lab.functions[function], "args": list(case.args), "kwargs": case.kwargs}
            return answer_call(functions, call, {"tables": {}, "results": {}, "queries": {}}, graded.folder)

        found.append((function, start, shrink.run(start, shrink.Reference(lab, function), ask)))
    return found


def _share_and_checks(graded, searched: list, functions_of) -> tuple[float, list[str]]:
    """The share of failing functions shown a counterexample, and what contradicts one shown: larger
    than its start, or not wrong on it when asked again here."""
    problems = []
    for label, function, start, found in searched:
        if found is None:
            continue
        if shrink.size(found.case) > shrink.size(start):
            problems.append(f"{label}: larger than its start")
        if not _wrong(functions_of(label)[function], found.case, graded.plan.lab):
            problems.append(f"{label}: right on {found.case.call_text()}")
    shown = sum(found is not None for *_, found in searched)
    return shown / max(len(searched), 1), problems


def test_the_catalogue_variants_get_counterexamples(graded):
    """Does every catalogued misconception's every form (write_run's aside), as a function that fails
    a public case, get a counterexample at least 95 % of the time, never larger than its start and
    still wrong when asked again here, the same one on a second search?"""
    searched, functions_of = [], {}
    for label, function, form in _forms():
        functions_of[label] = {function: form}
        searched += [(label, *row) for row in _search_all(graded, {function: form}, {function})]
    share, problems = _share_and_checks(graded, searched, functions_of.get)
    assert len(searched) >= 80  # the catalogue's forms that fail a public case (93 on 2026-12-06)
    assert share >= 0.95, [label for label, *_, found in searched if found is None]
    assert problems == []
    for label, function, _, found in searched[:10]:  # the same answers, the same counterexample
        (again,) = [item for name, _, item in _search_all(graded, functions_of[label], {function}) if name == function]
        assert (again.case if again else None) == (found.case if found else None)


MUTANTS, SEED = 40, 20261206


@pytest.mark.slow
def test_the_reference_mutants_get_counterexamples(graded):
    """Do a fixed sample of the reference's single-operator mutants of metrics.py (``tools/mutants.py``),
    for each function that fails a public case, get a counterexample at least 95 % of the time, never
    larger than its start and still wrong when asked again here?"""
    from tools import mutants

    generated = mutants.generate("metrics.py")
    sample = sorted(random.Random(SEED).sample(generated, MUTANTS), key=lambda m: m.id)
    searched, functions_of = [], {}
    for mutant in sample:
        try:
            functions = mutants.load(mutant.source, f"mutant_{mutant.id}")
        except Exception:  # a mutant that does not even load has nothing to shrink
            continue
        functions_of[mutant.id] = functions
        searched += [(mutant.id, *row) for row in _search_all(graded, functions, set(graded.plan.lab.functions))]
    share, problems = _share_and_checks(graded, searched, functions_of.get)
    assert len(searched) >= 10
    assert share >= 0.95, [label for label, *_, found in searched if found is None]
    assert problems == []
    assert statistics.median(shrink.size(found.case) for *_, found in searched if found) <= 4


# ---------------------------------------------------------------- never a hidden input


CANARY = "CANARY-7f3a"


def test_a_search_never_starts_from_a_hidden_case(graded):
    """When every case fails, hidden ones too (their inputs marked with a canary), does each
    function's search start from a public case whose call runs before every secret one, with no
    canary in it; and when only hidden cases fail, does none start at all?"""
    plan, submission = graded.plan, graded.submission

    def marked(planned):
        if planned.case.public:
            return planned
        return dataclasses.replace(planned, case=dataclasses.replace(planned.case, args=(*planned.case.args, CANARY)))

    canaried = dataclasses.replace(submission, planned=[marked(planned) for planned in submission.planned])
    wrong = [Outcome(OutcomeStatus.VALUE, value=encode(-7.5)) for _ in submission.calls]
    chosen = counterexamples.starts(plan, canaried, wrong)
    assert chosen, "every function fails: some search must start"
    for planned, case in chosen.values():
        assert planned.case.public and planned.call < submission.secret_start
        assert not submission.calls[planned.call].get("secret")
        assert CANARY not in repr(case)
    hidden_only = [
        wrong[index] if index >= submission.secret_start else right for index, right in enumerate(graded.right)
    ]
    assert counterexamples.starts(plan, canaried, hidden_only) == {}
    probes = counterexamples.probes(plan, canaried, set())
    assert probes and all(case.id.startswith("probe-") for cases in probes.values() for case in cases)
    assert CANARY not in repr(probes), "a probe holds a hidden input"
    assert probes == counterexamples.probes(plan, submission, set()), "the probes depend on the hidden cases"


def _keyed(plan, key: str):
    """``plan`` as if read from the cache under ``key`` (its probes' values then kept per plan)."""
    keyed = copy.copy(plan)
    keyed.lab, keyed.key = plan.lab, key  # a copy, as one from the cache, is handed its lab back
    return keyed


def _counting(monkeypatch, plan) -> list:
    """The functions the lab's answers are asked of, from now on (``registry.answers``' calls)."""
    asked: list = []
    answers = plan.lab.registry.answers

    def counted(function, cases, *args, **kwargs):
        asked.append(function)
        return answers(function, cases, *args, **kwargs)

    monkeypatch.setattr(plan.lab.registry, "answers", counted)
    return asked


@pytest.mark.parametrize("before", ["warm", "first submission"])
def test_a_batchs_probes_value_each_input_once_and_are_the_fresh_ones(graded, monkeypatch, before):
    """With one plan (as in a batch), are a submission's probes, drawn with the inputs valued before
    kept (by ``warm`` before the workers fork, or by a first submission), those drawn with nothing
    kept, while asking the lab's answers fewer times?"""
    monkeypatch.setattr(counterexamples, "_VALUED", {})
    first, second = (graded.plan.for_submission(seed, kept=False) for seed in ("batch-a", "batch-b"))
    asked = _counting(monkeypatch, graded.plan)
    fresh = counterexamples.probes(graded.plan, second, set())  # no key: nothing kept
    afresh, asked[:] = len(asked), []
    keyed = _keyed(graded.plan, f"one-batch-{before}")
    if before == "warm":
        counterexamples.warm(keyed)
    else:
        counterexamples.probes(keyed, first, set())
    asked[:] = []
    assert counterexamples.probes(keyed, second, set()) == fresh
    assert 0 < len(asked) < afresh


def test_a_plans_kept_candidates_are_let_go_past_their_bound(graded, monkeypatch):
    """Once a plan's kept candidates and answers pass ``VALUED_MEMO``, are they let go (a batch of
    many submissions keeps no more), the probes drawn after it still the fresh ones?"""
    monkeypatch.setattr(counterexamples, "_VALUED", {})
    monkeypatch.setattr(counterexamples, "VALUED_MEMO", 50)
    keyed = _keyed(graded.plan, "bounded")
    first, second = (graded.plan.for_submission(seed, kept=False) for seed in ("bound-a", "bound-b"))
    counterexamples.probes(keyed, first, set())
    held = counterexamples._VALUED["bounded"]
    assert sum(len(valued) + len(reference.known) for reference, valued in held.values()) > 50
    assert counterexamples._valued(keyed) == {}
    assert counterexamples.probes(keyed, second, set()) == counterexamples.probes(graded.plan, second, set())


def test_a_regrade_reads_its_probes_and_their_answers_back(graded, monkeypatch, tmp_path):
    """Are the probes kept in the cache (the plan's key, the seed, the functions skipped) the ones
    ``probes`` draws, and does a regrade in a new process read them and the lab's answers on them
    back, asking the lab's answers nothing?"""
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path))
    monkeypatch.setattr(counterexamples, "_VALUED", {})
    plan, submission = _keyed(graded.plan, f"regrade-{tmp_path.name}"), graded.submission
    drawn = counterexamples.probes(graded.plan, submission, {"accuracy"})
    assert counterexamples.kept_probes(plan, submission, {"accuracy"}) == drawn
    monkeypatch.setattr(counterexamples, "_VALUED", {})  # a new process: the cache alone
    asked = _counting(monkeypatch, graded.plan)
    assert counterexamples.kept_probes(plan, submission, {"accuracy"}) == drawn and asked == []
    answers = [counterexamples._reference(plan, f).expected(case) for f, cases in drawn.items() for case in cases]
    assert len(answers) == sum(map(len, drawn.values())) > 0 and asked == []
    assert counterexamples.kept_probes(plan, submission, set()) != drawn  # another skip: drawn again
    assert asked != []


def test_an_honest_submission_starts_no_search(graded):
    """Does the reference, answering every case and every probe right, start no search: its only
    calls beyond grading's the probes, at most ``PROBES`` a function, and the run writer's?"""
    log: list = []
    plan = graded.plan
    functions = graded.solution["metrics.py"]
    finder = counterexamples.Finder(
        plan, graded.submission, fake_run(functions, graded.folder, log), plan.rubric.limits
    )
    finder.after_public(SandboxResult(outcomes=list(graded.right)))
    assert counterexamples.starts(plan, graded.submission, graded.right) == {}
    probes = counterexamples.probes(plan, graded.submission, set())
    writer = len(shrink_run.WRITER_PROBES)  # the run writer's probes: the example with refused arguments, k=1
    assert finder.found == {} and len(log) == sum(map(len, probes.values())) + writer
    assert all(len(cases) <= counterexamples.PROBES for cases in probes.values())


def _catalogued(misconception: str, function: str, index: int = 0):
    from autograder.lab.misconceptions.catalogue import LIBRARY

    forms = LIBRARY[misconception].variants[function]
    return as_submitted(function, forms[index] if isinstance(forms, tuple) else forms)


#: (id, function, a wrong implementation right on every public case, what its counterexample's call must hold)
HIDDEN_ONLY = [
    ("k=0 accepted", "precision_at_k", lambda: _catalogued("k-zero-accepted", "precision_at_k"), "k=0"),
    ("TypeError for k=1.5", "precision_at_k", lambda: _catalogued("non-integer-type-error", "precision_at_k"), "1.5"),
    ("unknown gain read as linear", "ndcg_at_k", lambda: _catalogued("unknown-gain-linear", "ndcg_at_k"), "unknown"),
    (
        "unknown gain read as linear (dcg)",
        "dcg_at_k",
        lambda: _catalogued("unknown-gain-linear", "dcg_at_k"),
        "unknown",
    ),
]


@pytest.mark.parametrize("name, function, made, holds", HIDDEN_ONLY, ids=[row[0] for row in HIDDEN_ONLY])
def test_a_function_failing_hidden_cases_only_gets_a_counterexample_from_a_probe(graded, name, function, made, holds):
    """Does a function right on every public case (no search starts from one) but wrong elsewhere
    (on a refused argument, as the hidden edge cases test) get, through the driver, a counterexample
    shrunk from a probe, no larger than the probe, said to come from one?"""
    plan, wrong = graded.plan, made()
    functions = {**graded.solution["metrics.py"], function: wrong}
    outcomes = list(graded.right)  # graded right on every case (some seeds draw a public case it fails)
    assert counterexamples.starts(plan, graded.submission, outcomes) == {}
    finder = counterexamples.Finder(plan, graded.submission, fake_run(functions, graded.folder, []), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    _, found = finder.found[function]
    assert found.start.startswith("probe-") and found.size <= found.start_size and holds in found.call
    shown = [
        case for case in counterexamples.probes(plan, graded.submission, set())[function] if case.id == found.start
    ]
    assert shown and shrink.size(shown[0]) == found.start_size


# ---------------------------------------------------------------- the driver, calls in chunks


def test_the_driver_finds_what_the_search_finds_one_call_at_a_time(graded):
    """Does the sandbox's driver, sending its calls in chunks with inputs chosen as each is sent,
    find for each failing function the counterexample the search finds alone, on the check its
    start case belongs to, within the budget of calls?"""
    plan = graded.plan
    wrong = {"precision_at_k": WORKED[0][2], "average_precision": WORKED[1][2]}
    functions = {**graded.solution["metrics.py"], **wrong}
    log: list = []
    finder = counterexamples.Finder(
        plan, graded.submission, fake_run(functions, graded.folder, log), plan.rubric.limits
    )
    outcomes = graded.answers(functions, set(wrong))
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    alone = {function: found for function, _, found in _search_all(graded, functions, set(wrong))}
    assert set(finder.found) == set(wrong)
    for function, (check, example) in finder.found.items():
        assert check.startswith(f"{function}: ")
        assert example.call == alone[function].case.call_text(limit=600)
        assert example.size <= example.start_size and example.calls <= shrink.BUDGET
        assert sum(body["fn"] == function for body in log) <= shrink.BUDGET + counterexamples.CHUNK


# ---------------------------------------------------------------- shown once, in every view

#: (id, the counterexample, what every view must show of it)
SHOWN = [
    (
        "a wrong value",
        Counterexample(
            call="precision_at_k(['a'], {'a': 1}, k=2)",
            expected=0.5,
            actual=1.0,
            size=2,
            start_size=8,
            start="notes-toy-p@10-short-ranking",
            calls=26,
        ),
        ["precision_at_k(['a'], {'a': 1}, k=2)", "expected: 0.5", "1", "2 documents and judgments", "26 calls"],
    ),
    (
        "an error, the search stopped early",
        Counterexample(
            call="average_precision([], {})",
            expected=0.0,
            actual=None,
            raised="raised ZeroDivisionError: division by zero",
            size=0,
            start_size=1,
            start="random-average_precision-004",
            calls=200,
            stopped_early=True,
        ),
        ["average_precision([], {})", "raised ZeroDivisionError: division by zero", "a smaller one may exist"],
    ),
    (
        "None returned",
        Counterexample(
            call="reciprocal_rank([], {}, rel=1)",
            expected=0.0,
            actual=None,
            size=0,
            start_size=2,
            start="random-reciprocal_rank-001",
            calls=4,
        ),
        ["reciprocal_rank([], {}, rel=1)", "None"],
    ),
]


def _result_with(example: Counterexample) -> SubmissionResult:
    function = example.call.split("(")[0]
    case = CaseResult(
        id="c", description="d", public=True, status=CaseStatus.FAIL, expected=1.0, actual=0.0, call="c()"
    )
    check = CheckResult(
        name=f"{function}: random cases",
        question="q2",
        function=function,
        kind=CheckKind.RANDOM,
        max_score=4,
        score=0,
        visibility="visible",
        cases=(case,),
        counterexample=example,
    )
    return SubmissionResult(submission="s", status=Status.GRADED, checks=(check,))


@pytest.mark.parametrize("name, example, wanted", SHOWN, ids=[row[0] for row in SHOWN])
def test_every_view_shows_the_counterexample_and_grade_json_keeps_it(name, example, wanted):
    """Do feedback.md, feedback.html, Gradescope's and PrairieLearn's results show the counterexample
    (the call, both values, how small, whether the search stopped early) from the student view, and
    does grade.json's record read back the same?"""
    from autograder.reports import feedback_html, gradescope_json, markdown, prairielearn_json

    result = _result_with(example)
    views = {
        "feedback.md": markdown.markdown(result, lab=default_lab()),
        "feedback.html": html.unescape(feedback_html.render(result, lab=default_lab())),
        "gradescope": json.dumps(gradescope_json.document(result, default_lab()), ensure_ascii=False),
        "prairielearn": json.dumps(prairielearn_json.document(result, default_lab()), ensure_ascii=False),
    }
    for view, text in views.items():
        text = text.replace("\\n", "\n").replace('\\"', '"')
        assert [part for part in wanted if part not in text] == [], view
        if example.actual is None and not example.raised:  # returned None: said, not left blank
            assert "yours:    None" in text or "yours: None" in text, view
    assert SubmissionResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert "counterexample" not in json.dumps(
        dataclasses.replace(result, checks=(dataclasses.replace(result.checks[0], counterexample=None),)).to_dict()
    )


#: (id, how many times a case may be asked before the function answers it right)
LATE_CHANGES = [("right on a case's third asking", 2), ("right on a case's fourth asking", 3)]


@pytest.mark.parametrize("name, wrong_times", LATE_CHANGES, ids=[row[0] for row in LATE_CHANGES])
def test_the_driver_drops_a_counterexample_its_last_calls_find_right(graded, name, wrong_times):
    """Does the driver, whose calls left in a chunk ask the smallest case again, show no counterexample
    when the function answers that case right on one of those calls?"""
    plan = graded.plan
    asked: dict[str, int] = {}
    reference = graded.solution["metrics.py"]["precision_at_k"]

    def fickle(ranking, judgments, k, rel=1):
        key = repr((list(ranking), dict(judgments), k, rel))
        asked[key] = asked.get(key, 0) + 1
        value = reference(ranking, judgments, k, rel)
        return value if asked[key] > wrong_times else value + 0.5

    functions = {**graded.solution["metrics.py"], "precision_at_k": fickle}
    outcomes = graded.answers(functions, {"precision_at_k"})
    asked.clear()  # the grading's own calls were another process's
    finder = counterexamples.Finder(plan, graded.submission, fake_run(functions, graded.folder, []), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    assert max(asked.values()) > wrong_times  # some case was asked again past its wrong answers
    assert finder.found == {}


def _kept_between_calls():
    """precision_at_k counting the relevant documents of every call so far (a default list that grows)."""
    seen: list = []

    def kept(ranking, judgments, k, rel=1, _seen=seen):
        _seen.extend(doc for doc in ranking[:k] if judgments.get(doc, 0) >= rel)
        return min(1.0, len(_seen) / k) if _seen else 0.0

    return kept, seen.clear


def _pure_wrong():
    return WORKED[0][2], lambda: None


#: (id, a wrong precision_at_k and what starts another process's state, is "answers change" said?)
ASKED_AGAIN = [("a list kept between calls", _kept_between_calls, True), ("a pure mistake", _pure_wrong, False)]


@pytest.mark.parametrize("name, made, said", ASKED_AGAIN, ids=[row[0] for row in ASKED_AGAIN])
def test_a_start_answered_otherwise_in_another_process_is_said(graded, name, made, said):
    """Does the search, asking its start case again first in a process of its own, say "answers the same
    call differently" (with both answers, on the start's check) exactly when that answer is another value
    than the graded one?"""
    wrong, fresh = made()
    plan = graded.plan
    functions = {**graded.solution["metrics.py"], "precision_at_k": wrong}
    outcomes = graded.answers(functions, {"precision_at_k"})
    fresh()  # the search's child is another process: what the grading's calls kept is gone
    finder = counterexamples.Finder(plan, graded.submission, fake_run(functions, graded.folder, []), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    assert ("precision_at_k" in finder.changed) is said
    if said:
        check, diagnosis = finder.changed["precision_at_k"]
        assert check.startswith("precision_at_k: ") and diagnosis.id == repeats.ID
        assert "when graded and" in diagnosis.explanation and "asked again in another process" in diagnosis.explanation
        checks = (CheckResult(check, "q", "precision_at_k", CheckKind.RANDOM, 2.0, 1.0, "visible"),)
        assert [d.id for d in counterexamples.said_again(checks, finder.changed)[0].diagnoses] == [repeats.ID]


def test_a_failing_search_costs_nothing_and_tells_the_instructor(graded, monkeypatch):
    """When the search itself fails (a grader's bug: here the reference's answers raise), does the
    driver keep no counterexample, raise nothing, and say why for the instructor's log?"""
    plan = graded.plan

    def broken(self, case):
        raise RuntimeError("the reference is broken")

    monkeypatch.setattr(shrink.Reference, "expected", broken)
    functions = {**graded.solution["metrics.py"], "precision_at_k": WORKED[0][2]}
    finder = counterexamples.Finder(plan, graded.submission, fake_run(functions, graded.folder, []), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=list(graded.answers(functions, {"precision_at_k"}))))
    assert finder.found == {}
    assert "RuntimeError: the reference is broken" in finder.problem


def test_a_call_with_the_graders_measure_says_what_that_measure_is():
    """Does a counterexample whose call hands evaluate one of the grader's own measures say what that
    measure computes (a student cannot know what grade_of_first returns for an empty ranking)?"""
    case = Case(id="c", function="evaluate", description="d", args=({}, {"1": {}}, {"$measure": "grade_of_first"}))
    answered = Outcome(status=OutcomeStatus.VALUE, value={"1": 0})
    found = shrink.Shrunk(
        case=case, expected={"1": -2}, outcome=answered, start=case, calls=3, stopped_early=False, how="wrong"
    )
    shown = counterexamples.counterexample(found)
    assert "grade_of_first" in shown.call.splitlines()[0]
    assert "# grade_of_first: the grader's measure: the grade of the ranking's first document" in shown.call
    assert "-2 for an empty ranking" in shown.call


def _check_with(diagnosis_id: str, explanation: str) -> CheckResult:
    """A failing check of ndcg_at_k holding one diagnosis (``diagnosis_id``, ``explanation``)."""
    found = Diagnosis(id=diagnosis_id, function="ndcg_at_k", title="t", explanation=explanation, notes="Part IV")
    return CheckResult(
        name="ndcg_at_k: random cases",
        question="q",
        function="ndcg_at_k",
        kind=CheckKind.RANDOM,
        max_score=1.0,
        score=0.5,
        visibility="visible",
        diagnoses=(found,),
    )


#: (id, the diagnosis's id, its explanation, the counterexample's answer, expected, raised, kept?)
DIRECTED = [
    ("too-high-but-lower", "shape-too-high", "Every wrong answer is larger.", 0, 1, "", False),
    ("too-high-and-higher", "shape-too-high", "Every wrong answer is larger.", 2, 1, "", True),
    ("too-low-but-higher", "shape-too-low", "Every wrong answer is smaller.", 1.5, 1, "", False),
    ("too-high-but-raised", "shape-too-high", "Every wrong answer is larger.", None, 1, "raised KeyError", False),
    ("condition-too-high-but-lower", "condition-x", "Fails on x. Every wrong answer is too high.", 0.2, 0.5, "", False),
    ("condition-too-low-and-lower", "condition-x", "Fails on x. Every wrong answer is too low.", 0.2, 0.5, "", True),
    ("no-direction", "shape-outside-0-1", "Its answers lie outside [0, 1].", 0, 1, "", True),
    ("reordered-but-another-item", "shape-reordered", "The right items, in another order.", ["1"], ["2"], "", False),
    ("reordered-and-reordered", "shape-reordered", "The right items, in another order.", ["2", "1"], ["1", "2"], "",
     True),
    ("reordered-but-raised", "shape-reordered", "The right items, in another order.", None, ["1"], "raised KeyError",
     False),
    ("reversed-but-not", "shape-reversed", "The right list reversed.", ["1", "3", "2"], ["1", "2", "3"], "", False),
    ("reversed-and-reversed", "shape-reversed", "The right list reversed.", ["3", "2", "1"], ["1", "2", "3"], "", True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("diagnosis_id", "explanation", "actual", "expected", "raised", "kept"),
    [case[1:] for case in DIRECTED],
    ids=[case[0] for case in DIRECTED],
)
def test_is_a_direction_its_counterexample_contradicts_dropped(
    diagnosis_id, explanation, actual, expected, raised, kept
):
    """A diagnosis saying what every wrong answer is (too high, the right items in another order,
    the right list reversed) was told by the graded cases alone: is it dropped when the function's
    counterexample (a wrong answer too) is not that or raises, and kept when it agrees or says
    nothing the counterexample could refute?"""
    found = Counterexample(call="ndcg_at_k(...)", expected=expected, actual=actual, raised=raised)
    check = _check_with(diagnosis_id, explanation)
    (attached,) = counterexamples.attach((check,), {"ndcg_at_k": (check.name, found)})
    assert attached.counterexample == found
    assert (attached.diagnoses == check.diagnoses) is kept
