"""Why a function lost points, as far as its answers tell (in the parent, on trusted code).

For each function that lost points, three kinds of diagnosis, in this order:

1. a **misconception** (``lab.misconceptions.catalogue``): a known wrong variant of the function is
   named when it explains *every* judged case: on each, the submission's answer is one the
   variant's usual forms give (where the variant is right, the submission must be right too), and
   on some case the variant is wrong (a case where the code raised and the variant answers is another
   failure, e.g. an input it cannot take: it says nothing of the mistake). Every variant that
   explains all cases predicts the same wrong answers, so the data cannot choose between two of
   them: the catalogue's order does (the first is named, and only it); when none does, a **change inside
   the measure's definition** (``grading.diagnosis.compositions``): the part that every composition of the
   lab's parts table fitting every judged case changes;
2. the **condition** (``grading.conditions``): the feature of the inputs that the failing cases
   have and the passing ones lack;
3. **shapes** (``grading.shapes``), when no misconception is named: what the wrong answers have in
   common, each a premise checked against every failing and passing case.

Every diagnosis is thus consistent with every case it is shown for; none states a hidden expected
value. The run writer's files are diagnosed by ``grading.diagnosis.run_files``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from autograder.grading import judge
from autograder.grading.diagnosis import compositions, conditions, observed, repeats, shapes
from autograder.grading.diagnosis import run_files as file_diagnosis
from autograder.grading.inputs import resolve
from autograder.grading.plan import random_neighbours
from autograder.grading.results import CheckResult, Diagnosis
from autograder.labkit.case import RAISES, Case
from autograder.labkit.kinds import CheckKind
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:
    from autograder.grading.plan import Plan, PlannedCase
    from autograder.grading.runfile_checks import RunFile
    from autograder.labkit.misconception import Misconception

#: A variant's answer for a case: ("value", what it returned) or ("raises", the exception's class name).
Answer = tuple[Literal["value", "raises"], Any]
#: The answers of a misconception's forms, by (misconception id, function, case id): kept with the plan.
Memo = dict[tuple[str, str, str], list[Answer]]


def _run(variant: Callable[..., Any], case: Case, tables: dict[str, dict[str, Any]]) -> Answer:
    """The variant's answer for a case: ``("value", v)`` or ``("raises", name)``."""
    try:
        return "value", variant(*[resolve(arg, tables) for arg in case.args], **case.kwargs)
    except Exception as error:  # the variant's own failure mode (e.g. ZeroDivisionError) is evidence
        return "raises", type(error).__name__


def same(a: object, b: object, tolerance: float) -> bool:
    """Equality of plain values with the grader's tolerance for numbers (the lab's, ``judge.close``)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, tolerance) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key], tolerance) for key in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return judge.close(float(a), float(b), tolerance)
    return a == b


def _matches(case: observed.Observed, answer: Answer) -> bool:
    """Is the submission's outcome on ``case`` the variant's ``answer``?"""
    kind, value = answer
    if kind == "raises":
        return case.outcome.status == OutcomeStatus.ERROR and value in (case.outcome.error or {}).get("mro", [])
    try:
        return case.equals(list(value) if isinstance(value, tuple) else value)
    except (TypeError, ValueError, OverflowError):
        return False


def _right(answer: Answer, expected: Any, tolerance: float) -> bool:
    """Is the variant's ``answer`` the right one (within the lab's ``tolerance``)?"""
    kind, value = answer
    if judge.wants_error(expected):
        if kind != "raises":
            return False
        raised: str = value  # a "raises" answer holds the exception's class name
        wanted: str = expected[RAISES]  # ``cases.raises``: the class name the call must raise
        return raised == wanted
    if kind != "value" or (isinstance(value, float) and math.isnan(value)):
        return False
    try:
        return same(list(value) if isinstance(value, tuple) else value, expected, tolerance)
    except (TypeError, ValueError, OverflowError):
        return False


def _answers(
    item: Misconception, function: str, case: observed.Observed, tables: dict[str, dict[str, Any]], memo: Memo
) -> list[Answer]:
    """The answers of the variant's forms on ``case`` (remembered per plan, but for random cases)."""
    key = (item.id, function, case.case.id)
    if case.planned.kind != CheckKind.RANDOM and key in memo:
        return memo[key]
    forms = item.variants[function]
    found = [_run(form, case.case, tables) for form in (forms if isinstance(forms, tuple) else (forms,))]
    if case.planned.kind != CheckKind.RANDOM:
        memo[key] = found
    return found


def explains(
    item: Misconception,
    function: str,
    cases: list[observed.Observed],
    tables: dict[str, dict[str, Any]],
    memo: Memo,
) -> tuple[set[str], int] | None:
    """When the misconception ``item`` explains every judged case of ``function`` (failing ones
    first: most variants fail there at once): the checks where it shows, and how many failing cases
    it explains only by leaving them aside (the code raised where the mistake answers); else None."""
    where: set[str] = set()  # the checks of the cases where the variant is wrong
    aside = 0
    for case in sorted(cases, key=lambda case: not case.failed):
        if case.wants_error and not item.arguments:
            continue  # what it says of valid inputs says nothing of the arguments' checks
        answers = _answers(item, function, case, tables, memo)
        if case.raised is not None and not case.wants_error and all(kind == "value" for kind, _ in answers):
            aside += case.failed
            continue  # it raised where the mistake answers: another failure (e.g. an input it cannot take)
        if not any(_matches(case, answer) for answer in answers):
            return None
        if not any(_right(answer, case.expected, case.tolerance) for answer in answers):
            where.add(case.planned.check)
    return (where, aside) if where else None


def diagnose(
    plan: Plan,
    planned_cases: Iterable[PlannedCase],
    outcomes: Sequence[Outcome],
    failing_functions: Iterable[str],
    run_files: dict[str, RunFile],
    checks: Sequence[CheckResult] = (),
) -> dict[str, list[Diagnosis]]:
    """{check name: [diagnosis, ...]} for the checks of the functions that lost points (``run_files``:
    the run writer's ``runfile_checks.RunFile`` per scenario): the known misconceptions that explain their
    answers, the condition that separates their failing cases, the shapes of their wrong answers."""
    found: dict[str, list[Diagnosis]] = {}
    by_function: dict[str, list[PlannedCase]] = {}
    for planned in planned_cases:
        by_function.setdefault(planned.case.function, []).append(planned)
    writer = plan.lab.registry.run_writer()  # the function whose checks read a run file, if any
    failing_checks: dict[str, list[str]] = {}
    for result in checks:
        if not result.full:
            failing_checks.setdefault(result.function, []).append(result.name)
    for function in sorted(failing_functions):
        if function == writer:
            for check, items in file_diagnosis.diagnose(plan, run_files, checks).items():
                found.setdefault(check, []).extend(items)
            continue
        cases = observed.judged(
            by_function.get(function, []),
            outcomes,
            lambda planned: _neighbours(plan, planned),
            tolerance=plan.lab.tolerance,
        )
        memo: Memo = plan.__dict__.setdefault("variant_answers", {})
        # the misconception that explains the cases, leaving the fewest failing ones aside (an
        # ambiguity the catalogue's order settles): one that reproduces three failures and sets
        # aside the 950 where the code raised is not the one to name
        best: tuple[int, int, Misconception, set[str]] | None = None
        for order, item in enumerate(plan.lab.misconceptions.for_function(function)):
            explained = explains(item, function, cases, plan.shared_job["tables"], memo)
            if explained is not None and (best is None or (explained[1], order) < best[:2]):
                best = (explained[1], order, item, explained[0])
            if best is not None and best[0] == 0:
                break
        named = best is not None
        if best is not None:
            for check in sorted(best[3]):
                found.setdefault(check, []).append(Diagnosis.of_misconception(best[2], function))
        else:
            named = _composition(plan, function, cases, memo, found)
        general: list[Diagnosis] = []
        failures = sum(not case.passed for result in checks if result.function == function for case in result.cases)
        condition = conditions.diagnosis(
            plan.lab,
            function,
            [(case.features, case.failed, case.label()) for case in cases],
            [case.direction for case in cases],
            unseen=max(0, failures - sum(case.failed for case in cases)),
        )
        if condition is not None:
            general.append(condition)
        if not named:
            general += shapes.diagnose(plan.lab, function, cases)
        general += repeats.diagnose(function, plan.lab.notes_part(function), cases)
        for check in failing_checks.get(function, []):
            found.setdefault(check, []).extend(general)
    return found


def _composition(
    plan: Plan, function: str, cases: list[observed.Observed], memo: Memo, found: dict[str, list[Diagnosis]]
) -> bool:
    """The change inside the measure's definition that explains every judged case, when the lab describes
    the function by its parts (the catalogue's ``PARTS``) and the fitting compositions share one: said on
    the checks where it shows. Is something said?"""
    measure = getattr(plan.lab.misconceptions, "PARTS", {}).get(function)
    if measure is None:
        return False
    tables = plan.shared_job["tables"]
    fit = compositions.search(
        function, measure, cases, lambda item, name, judged: explains(item, name, judged, tables, memo)
    )
    said = compositions.diagnosis(function, measure, fit.fitting)
    if said is None:
        return False
    for check in sorted(fit.checks):
        found.setdefault(check, []).append(said)
    return True


def _neighbours(plan: Plan, planned: PlannedCase) -> dict[str, Any]:
    """The reference's answers at k - 1, k + 1 and rel + 1: stored with the plan, or (a random
    case, drawn for this grading) computed now."""
    if planned.case.id in plan.neighbours:
        return plan.neighbours[planned.case.id]
    return random_neighbours(plan.lab, planned.case) if planned.kind == CheckKind.RANDOM else {}
