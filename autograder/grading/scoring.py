"""From the child's outcomes to check results: every case judged, every check scored.

Cases of calls are judged by ``judge.verdict``; the run writer's checks read the run files it
wrote (``runfile_checks``). A check's points come from its cases by the rubric's scoring
(``grading.rubric.SCORING``, ``points``): by default its cases are grouped by what they test, each
group is passed or not, and the points are shared between the groups, so a misconception costs
its concept's share however few cases it shows on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from autograder.grading import counting, judge, runfile_checks
from autograder.grading.results import CaseResult, CaseStatus, CheckResult, SubmissionResult, shown_error
from autograder.labkit.kinds import CheckKind
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:  # for types only: importing scoring still loads neither the plan nor the rubric
    from autograder.grading.plan import Plan, PlannedCase
    from autograder.grading.rubric import Rubric
    from autograder.labkit.lab import Lab

CALL_TEXT = 240  # characters of a call kept (the notes' examples and edge cases are short)
CALL_SHOWN = 2000  # a random case's call is kept whole: its student reproduces it


def _json(value: object) -> object:
    if isinstance(value, (tuple, list)):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    return value


UNCHANGED = counting.UNCHANGED
ALL = "every case"  # the group every case of a random or collection check belongs to


def groups_of(planned: PlannedCase, lab: Lab | None = None) -> tuple[str, ...]:
    """What a call's case tests, for scoring: an example or an edge case is a concept of its own;
    a random or collection case tests each feature its inputs have (but those the ``lab`` keeps for
    diagnoses only: a feature's ``scored``), and the function at all."""
    if planned.case.form:  # the same inputs called in another form: they test the function at all, no feature
        return (ALL,)
    if planned.kind.aggregated:
        known = lab.features.FEATURES if lab is not None else {}
        scored = [feature for feature in planned.features if getattr(known.get(feature), "scored", True)]
        return (ALL, *sorted(scored))
    return (planned.case.id,)


answers = counting.answers


def points(possible: float, cases: tuple[CaseResult, ...], scoring: str) -> float:
    """A check's points from its cases: ``groups`` (each group of cases passed or not, the points
    shared between the groups), ``proportional`` (the share of cases passed) or ``all``. A check
    none of whose answers is right earns nothing, whatever else passed: a function that always
    raises ValueError, or returns garbage without touching its arguments, has shown nothing.
    The rule is ``counting.count``'s, the one the feedback explains."""
    return counting.count(cases, scoring).points(possible)


def call_case(lab: Lab, planned: PlannedCase, outcome: Outcome, unimported: frozenset[str] = frozenset()) -> CaseResult:
    """One call's case result; passing Cranfield cases are kept lean (there are thousands);
    ``unimported``: the graded files that did not import."""
    case = planned.case
    imported = lab.functions[case.function] not in unimported
    status, message = judge.verdict(
        outcome, planned.expected, lab.returns[case.function], imported, tolerance=lab.tolerance
    )
    groups = groups_of(planned, lab)
    if status == CaseStatus.PASS and planned.kind == CheckKind.CRANFIELD:
        return CaseResult(id=case.id, description="", public=case.public, status=status, groups=groups)
    error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else {}
    return CaseResult(
        id=case.id,
        description=case.label(),
        public=case.public,
        status=status,
        message=judge.capped(message),
        call=case.call_text(
            CALL_SHOWN if planned.kind == CheckKind.RANDOM else CALL_TEXT, lab.records[case.function].parameters
        ),
        expected=_json(planned.expected),
        actual=judge.shown(outcome.value) if outcome.status == OutcomeStatus.VALUE else None,
        traceback=tuple(error.get("traceback", ())),
        hint=case.hint if status == CaseStatus.FAIL else "",  # a wrong value; an error or a crash says its own
        raised=str(error.get("type", "")),
        mro=tuple(error.get("mro", ())),
        groups=groups,
    )


def argument_cases(planned_cases: Sequence[PlannedCase], outcomes: Sequence[Outcome]) -> dict[str, list[CaseResult]]:
    """Per check of calls, one more case: did any of its calls change its arguments (sort the
    caller's ranking, add a key to its judgments...)? A group of its own in each check, so changing
    the caller's data costs a share of every check; the call it names is a public one if any."""
    by_check: dict[str, list[PlannedCase]] = {}
    for planned in planned_cases:
        by_check.setdefault(planned.check, []).append(planned)
    found: dict[str, list[CaseResult]] = {}
    for check, mine in by_check.items():
        guilty = [planned for planned in mine if outcomes[planned.call].mutated]
        answered = any(outcomes[planned.call].status == OutcomeStatus.VALUE for planned in mine)
        errors = [outcomes[p.call].error or {} for p in mine if outcomes[p.call].status == OutcomeStatus.ERROR]
        shown = next((planned for planned in guilty if planned.case.public), None)
        message, raised = "", ""
        if guilty:
            status = CaseStatus.FAIL
            example = f", e.g. {shown.case.call_text()}" if shown else ""
            message = (
                f"changed its arguments in {len(guilty)} call{'s' if len(guilty) != 1 else ''}{example}: a caller "
                "keeps using its ranking and judgments (a run is measured by several functions in turn); work on "
                "copies (sorted(...), dict(...)) and leave what it was given as it was"
            )
        elif answered:
            status = CaseStatus.PASS
        elif errors:  # nothing it did tells: no points for arguments it never had to keep
            # the class as a hidden case names it: the first error may be a hidden call's
            status = CaseStatus.ERROR
            raised = shown_error(str(errors[0].get("type", "")), tuple(errors[0].get("mro", ()))) or "an exception"
            message = f"raised {raised} on every call"
        else:
            status, message = CaseStatus.NOT_RUN, "none of its calls returned, so none showed its arguments kept"
        function = mine[0].case.function
        found[check] = [
            CaseResult(
                id=f"arguments-{function}-{check}",
                description=UNCHANGED,
                public=True,
                status=status,
                message=message,
                raised=raised,
                groups=(UNCHANGED,),
            )
        ]
    return found


def _key(value: object) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def constant_answers(planned_cases: Sequence[PlannedCase], outcomes: Sequence[Outcome]) -> dict[str, str]:
    """``{function: why it gets no credit}`` for each function that gave the same answer to every
    call while the right answers differ: an answer that ignores the input shows nothing, and must
    not collect the points of the cases whose right answer it happens to be (e.g. ``[]`` where no
    query is common, 0.0 where nothing relevant was retrieved). The answer is not quoted: code
    could make it of a hidden call's input. Only answers whose value can be read count: two objects
    the child could only name (two generators) are not the same answer."""
    given: dict[str, set[str]] = {}
    right: dict[str, set[str]] = {}
    for planned in planned_cases:
        outcome = outcomes[planned.call]
        function = planned.case.function
        if outcome.status != OutcomeStatus.VALUE or not judge.readable(outcome.value):
            continue  # only the calls it answered readably: calls cut short, or a value only named, say nothing
        given.setdefault(function, set()).add(_key(judge.plain(outcome.value)))
        if not judge.wants_error(planned.expected) and planned.expected is not None:
            right.setdefault(function, set()).add(_key(planned.expected))
    return {
        function: f"no credit: {function} returned the same answer whatever its input, while the right answers "
        "differ: an answer that does not depend on the input earns nothing"
        for function, answers in given.items()
        if len(answers) == 1 and len(right.get(function, ())) > 1
    }


def score_checks(
    plan: Plan,
    planned_cases: Sequence[PlannedCase],
    outcomes: Sequence[Outcome | None],
    zeroed: dict[str, str],
    files: dict[str, runfile_checks.RunFile],
    unimported: frozenset[str] = frozenset(),
) -> tuple[CheckResult, ...]:
    """Every check of the rubric with its cases and score; ``zeroed`` maps a graded file to
    the reason its checks get no credit (e.g. an evaluation library); ``files`` are the run
    files the run writer wrote (``runfile_checks.read_all``); ``unimported``: the graded files that did not import."""
    # the sandbox's outcomes (``SandboxResult.outcomes``): None only until ``runner.run`` has filled every one
    filled = cast("Sequence[Outcome]", outcomes)
    cases: dict[str, list[CaseResult]] = {}
    for planned in planned_cases:
        cases.setdefault(planned.check, []).append(call_case(plan.lab, planned, filled[planned.call], unimported))
    for name, found in runfile_checks.cases(plan, files).items():
        cases.setdefault(name, []).extend(found)
    for name, found in argument_cases(planned_cases, filled).items():
        cases.setdefault(name, []).extend(found)
    constant = constant_answers(planned_cases, filled)
    checks: list[CheckResult] = []
    for spec in plan.rubric.checks:
        mine = tuple(cases.get(spec.name, ()))
        score = points(spec.points, mine, spec.scoring)
        note = zeroed.get(plan.lab.functions[spec.function], "") or constant.get(spec.function, "")
        checks.append(
            CheckResult(
                name=spec.name,
                question=spec.question,
                function=spec.function,
                kind=spec.kind,
                max_score=spec.points,
                score=0.0 if note else score,
                visibility=spec.visibility,
                cases=mine,
                note=note,
                scoring=spec.scoring,
            )
        )
    return tuple(checks)


def rescored(stored: SubmissionResult, rubric: Rubric) -> SubmissionResult | None:
    """``stored`` (a ``SubmissionResult``) scored again under ``rubric``, from its stored cases:
    when only points, visibility or scoring changed, no code needs to run again. None when a check
    is new or its cases changed (the submission is graded again)."""
    from dataclasses import replace

    old: dict[str, CheckResult] = {check.name: check for check in stored.checks}
    if {spec.name for spec in rubric.checks} != set(old):
        return None
    checks: list[CheckResult] = []
    for spec in rubric.checks:
        check = old[spec.name]
        score = 0.0 if check.note else points(spec.points, check.cases, spec.scoring)
        checks.append(
            replace(
                check,
                question=spec.question,
                max_score=spec.points,
                score=score,
                visibility=spec.visibility,
                scoring=spec.scoring,
            )
        )
    # scored afresh from the cases: the overrides applied before are the class step's to apply again
    return replace(stored, checks=tuple(checks), rubric_digest=rubric.digest, adjustments=())
