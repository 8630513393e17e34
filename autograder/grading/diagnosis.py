"""Recognising known misconceptions in a submission's outputs (in the parent, on trusted code).

For each function that lost points, every known wrong variant (``lab.misconceptions.catalogue.LIBRARY``) is
run on the inputs of the function's cases. A case is *telling* when the variant's answer
differs from the right one; the submission shows the misconception when its answers equal
the variant's on nearly all telling cases (and on at least two). The right solution never
matches: on telling cases it gives the right answer, which the variant does not.
"""

from __future__ import annotations

from dataclasses import replace

from autograder.grading import conditions, judge, runchecks, shapes
from autograder.grading.inputs import resolve
from autograder.grading.plan import random_neighbours
from autograder.grading.results import CaseStatus, Diagnosis
from autograder.lab import variants
from autograder.lab.functions.registry import run_writer
from autograder.lab.misconceptions import catalogue as misconceptions
from autograder.lab.spec import CheckKind
from autograder.labkit import trec
from autograder.sandbox.channel import OutcomeStatus

WRITER = run_writer() or "the run writer"  # the function whose checks read a run file
MATCH_SHARE = 0.9
UNCUT = 10**6  # a k no search function reaches: the rows of a writer that does not cut at k
MIN_TELLING = 2
#: What a misconception answers on the plan's shared cases and scenarios depends on nothing a
#: submission does: computed once per process (a batch's worker) and plan (its key), not per
#: submission. (plan key, misconception, call index or scenario) -> its wrong answers or rows.
_ONCE: dict[tuple, list] = {}


def _once(key: tuple, compute) -> list:
    """``compute()``, remembered under ``key`` unless its first part (the plan's key) is empty."""
    if not key[0]:
        return compute()
    if key not in _ONCE:
        _ONCE[key] = compute()
    return _ONCE[key]


def _run(variant, case, tables):
    """The variant's answer for a case: ``("value", v)`` or ``("raises", name)``."""
    try:
        return "value", variant(*[resolve(arg, tables) for arg in case.args], **case.kwargs)
    except Exception as error:  # the variant's own failure mode (e.g. ZeroDivisionError) is evidence
        return "raises", type(error).__name__


def same(a, b) -> bool:
    """Equality of plain values with the grader's tolerance for numbers."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return judge.close(float(a), float(b))
    return a == b


def _student_matches(outcome, answer) -> bool:
    kind, value = answer
    if kind == "raises":
        return outcome.status == OutcomeStatus.ERROR and value in (outcome.error or {}).get("mro", [])
    return outcome.status == OutcomeStatus.VALUE and judge.difference(outcome.value, value) is None


def _wrong_answers(forms, planned, tables) -> list:
    """The answers of the usual forms of a mistake on a case that differ from the right one."""
    return [
        answer
        for answer in (_run(form, planned.case, tables) for form in forms)
        if not (answer[0] == "value" and same(answer[1], planned.expected))
    ]


def _evidence(item, function, cases, outcomes, tables, plan_key=""):
    """(telling, matched, checks where it matched) of a misconception on one function's cases;
    its answers on the shared cases (every case but the random ones, drawn afresh at every
    grading) are remembered under ``plan_key`` and the case's id."""
    forms = item.variants[function]
    forms = forms if isinstance(forms, tuple) else (forms,)
    telling = matched = 0
    where = set()
    for planned in cases:
        outcome = outcomes[planned.call]
        if judge.wants_error(planned.expected) or outcome.status not in (OutcomeStatus.VALUE, OutcomeStatus.ERROR):
            continue  # input validation, and calls that crashed or did not run, are other matters
        key = (plan_key if planned.kind != CheckKind.RANDOM else "", item.id, planned.case.id)
        wrong = _once(key, lambda planned=planned: _wrong_answers(forms, planned, tables))
        if len(wrong) < len(forms):
            continue  # some usual form of the mistake gets this case right: it tells nothing
        if outcome.status == OutcomeStatus.ERROR and not any(kind == "raises" for kind, _ in wrong):
            continue  # it raised where the mistake answers: another failure (e.g. an input it cannot take)
        telling += 1
        if any(_student_matches(outcomes[planned.call], answer) for answer in wrong):
            matched += 1
            where.add(planned.check)
    return telling, matched, where


def _candidates(item, scenario) -> list:
    """The files a wrong writer writes for a scenario (with and without cutting at k, if it gets more)."""
    candidates = list(item.variants[WRITER](scenario))
    if scenario.overfull:  # not cutting at k is a mistake of its own: the variant may come with it
        candidates += item.variants[WRITER](replace(scenario, k=UNCUT))
    return candidates


def _run_evidence(item, scenarios, tables_by_scenario, plan_key=""):
    """(telling, matched): the scenarios whose file is wrong, and those the variant explains."""
    telling = matched = 0
    for name, scenario in scenarios.items():
        table = tables_by_scenario.get(name)
        if table is None or _rows_equal(table, variants.rows(scenario)):
            continue
        telling += 1
        candidates = _once((plan_key, item.id, name), lambda scenario=scenario: _candidates(item, scenario))
        if any(_rows_equal(table, rows) for rows in candidates):
            matched += 1
    return telling, matched


def _rows_equal(table, rows) -> bool:
    if len(table) != len(rows):
        return False
    for got, want in zip(table, rows):
        if len(got) != len(want):
            return False
        if not all(trec.same_column(a, b) for a, b in zip(got, want)):
            return False
    return True


def _shown(item, function) -> Diagnosis:
    return Diagnosis(item.id, function, item.title, item.explanation, item.notes)


def diagnose(plan, planned_cases, outcomes, failing_functions, run_tables, checks=()) -> dict[str, list[Diagnosis]]:
    """{check name: [diagnosis, ...]} for the checks of the functions that lost points: the known
    misconceptions their answers match, the condition that separates their failing cases, the
    shapes of their wrong answers."""
    found: dict[str, list[Diagnosis]] = {}
    by_function: dict[str, list] = {}
    for planned in planned_cases:
        by_function.setdefault(planned.case.function, []).append(planned)
    failing_checks: dict[str, list[str]] = {}
    for check in checks:
        if not check.full:
            failing_checks.setdefault(check.function, []).append(check.name)
    for function in sorted(failing_functions):
        named = _misconceptions(plan, function, by_function.get(function, []), outcomes, run_tables)
        for check, items in named.items():
            found.setdefault(check, []).extend(items)
        general = (
            _run_conditions(plan, checks)
            if function == WRITER
            else _general(plan, function, by_function.get(function, []), outcomes, bool(named))
        )
        for check in failing_checks.get(function, []):
            found.setdefault(check, []).extend(general)
    return found


def _misconceptions(plan, function, cases, outcomes, run_tables) -> dict[str, list[Diagnosis]]:
    found: dict[str, list[Diagnosis]] = {}
    if function == WRITER:
        scenarios = {name: s for name, s in plan.scenarios.items() if name in run_tables and not s.raises}
        run_checks = [c.name for c in plan.rubric.checks if c.function == WRITER]
        for item in misconceptions.for_function(function):
            telling, matched = _run_evidence(item, scenarios, run_tables, plan.key)
            if telling >= 1 and matched >= max(1, MATCH_SHARE * telling):
                for check in run_checks:
                    found.setdefault(check, []).append(_shown(item, function))
        return found
    tables = plan.shared_job["tables"]
    for item in misconceptions.for_function(function):
        telling, matched, where = _evidence(item, function, cases, outcomes, tables, plan.key)
        if telling >= MIN_TELLING and matched >= MATCH_SHARE * telling and matched >= MIN_TELLING:
            for check in sorted(where):
                found.setdefault(check, []).append(_shown(item, function))
    return found


def _general(plan, function, cases, outcomes, named: bool) -> list[Diagnosis]:
    """The separating condition and the shapes of one function's call cases (the shapes only when
    no misconception already explains them)."""
    judged, failing = [], []
    for planned in cases:
        outcome = outcomes[planned.call]
        if outcome.status in (OutcomeStatus.NOT_RUN, OutcomeStatus.TIMEOUT, OutcomeStatus.CRASH):
            continue  # what the process did, not what the code computes
        failed = judge.verdict(outcome, planned.expected)[0] != CaseStatus.PASS
        judged.append((planned.features, failed, planned.case.label()))
        if failed:
            failing.append(shapes.Failing(planned, outcome, _neighbours(plan, planned)))
    found = []
    condition = conditions.diagnosis(function, judged)
    if condition is not None:
        found.append(condition)
    if not named:
        found += shapes.diagnose(function, failing)
    return found


def _neighbours(plan, planned) -> dict:
    """The reference's answers at k - 1, k + 1 and rel + 1: stored with the plan, or (a random
    case, drawn for this grading) computed now."""
    if planned.case.id in plan.neighbours:
        return plan.neighbours[planned.case.id]
    return random_neighbours(planned.case) if planned.kind == CheckKind.RANDOM else {}


def _run_conditions(plan, checks) -> list[Diagnosis]:
    """The run writer: the condition separating the scenarios whose file is wrong from the others."""
    failed: dict[str, bool] = {}
    messages: list[str] = []
    for check in checks:
        if check.function != WRITER:
            continue
        for case in check.cases:
            name = runchecks.scenario_of(case.id)
            if name in plan.scenarios:
                failed[name] = failed.get(name, False) or not case.passed
            if not case.passed:
                messages.append(case.message)
    judged = [
        (frozenset(plan.scenarios[name].features), bad, plan.scenarios[name].description)
        for name, bad in sorted(failed.items())
    ]
    found = [condition] if (condition := conditions.diagnosis(WRITER, judged)) is not None else []
    return found + shapes.run_shapes(messages)
