"""From the child's outcomes to check results: every case judged, every check scored.

A check's score is its points times the share of its cases passed. Cases of calls are judged
by ``judge.verdict``; the run writer's checks read the run files it wrote (``runchecks``).
"""

from __future__ import annotations

from autograder.grading import judge, runchecks
from autograder.grading.results import CaseResult, CaseStatus, CheckResult
from autograder.lab.spec import FUNCTIONS, RETURNS, CheckKind
from autograder.sandbox.channel import Outcome, OutcomeStatus

CALL_TEXT = 240  # characters of a call kept (the notes' examples and edge cases are short)
CALL_SHOWN = 2000  # a random case's call is kept whole: its student reproduces it


def _json(value):
    if isinstance(value, (tuple, list)):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    return value


def call_case(planned, outcome: Outcome, unimported: frozenset = frozenset()) -> CaseResult:
    """One call's case result; passing Cranfield cases are kept lean (there are thousands);
    ``unimported``: the graded files that did not import."""
    case = planned.case
    imported = FUNCTIONS[case.function] not in unimported
    status, message = judge.verdict(outcome, planned.expected, RETURNS[case.function], imported)
    if status == CaseStatus.PASS and planned.kind == CheckKind.CRANFIELD:
        return CaseResult(case.id, "", case.public, status)
    error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else {}
    return CaseResult(
        case.id,
        case.label(),
        case.public,
        status,
        judge.capped(message),
        case.call_text(CALL_SHOWN if planned.kind == CheckKind.RANDOM else CALL_TEXT),
        _json(planned.expected),
        judge.shown(outcome.value) if outcome.status == OutcomeStatus.VALUE else None,
        tuple(error.get("traceback", ())),
        case.hint if status == CaseStatus.FAIL else "",  # a wrong value; an error or a crash says its own
        str(error.get("type", "")),
    )


def score_checks(
    plan,
    planned_cases: list,
    outcomes: list,
    zeroed: dict[str, str],
    files: dict[str, runchecks.RunFile],
    unimported: frozenset = frozenset(),
) -> tuple[CheckResult, ...]:
    """Every check of the rubric with its cases and score; ``zeroed`` maps a graded file to
    the reason its checks get no credit (e.g. an evaluation library); ``files`` are the run
    files the run writer wrote (``runchecks.read_all``); ``unimported``: the graded files that did not import."""
    cases: dict[str, list[CaseResult]] = {}
    for planned in planned_cases:
        cases.setdefault(planned.check, []).append(call_case(planned, outcomes[planned.call], unimported))
    for name, found in runchecks.cases(plan, files).items():
        cases.setdefault(name, []).extend(found)
    checks = []
    for spec in plan.rubric.checks:
        mine = tuple(cases.get(spec.name, ()))
        passed = sum(case.passed for case in mine)
        score = round(spec.points * passed / len(mine), 4) if mine else 0.0
        note = zeroed.get(spec.file, "")
        checks.append(
            CheckResult(
                spec.name,
                spec.question,
                spec.function,
                spec.kind,
                spec.points,
                0.0 if note else score,
                spec.visibility,
                mine,
                note,
            )
        )
    return tuple(checks)
