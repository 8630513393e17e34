"""What a sandbox run tells beyond the answers: a sentence per graded file that did not import
(for the student), the flags of crashes, timeouts, limits and imports (for the instructor), and the
platform's overall time running out. The grader's ``sandbox`` and ``result`` stages read it.
"""

from __future__ import annotations

from autograder.grading.plan import Plan
from autograder.grading.results import CheckResult, Flag, FlagKind
from autograder.labkit.lab import Lab
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult, StopReason
from autograder.sandbox.settings import Call

_TROUBLE = (OutcomeStatus.TIMEOUT, OutcomeStatus.CRASH)
_OVERALL = StopReason.OVERALL_TIME_LIMIT
OVERALL_TIME = "not run: the autograder's overall time limit ran out"


def ungraded(plan: Plan, reason: str) -> tuple[CheckResult, ...]:
    """Every check of the rubric with no points, and why."""
    return tuple(
        CheckResult(
            name=spec.name,
            question=spec.question,
            function=spec.function,
            kind=spec.kind,
            max_score=spec.points,
            score=0.0,
            visibility=spec.visibility,
            cases=(),
            note=reason,
        )
        for spec in plan.rubric.checks
    )


DISTURBED = (
    "The grader was disturbed while grading this submission (something outside the sandbox ended it, "
    "twice): {count} could not be graded, through no fault of your code. Your instructor sees it and "
    "it will be graded again."
)
#: How each way an import can fail is told, before what the sandbox saw (``Outcome.detail``, in
#: parentheses: a clause such as "the process ended (exit status 159)" or a predicate such as
#: "took too long", so it is never the sentence's verb).
IMPORT_FAILED = {
    OutcomeStatus.TIMEOUT: "importing it did not finish in time",
    OutcomeStatus.CRASH: "its process stopped while importing it",
}
TOP_LEVEL_HINT = "Code at the top level of a file runs when it is imported: keep it to imports and definitions."
NOTHING_GRADED = "None of its functions could be graded."


def import_problems(lab: Lab, result: SandboxResult) -> list[str]:
    """A sentence per graded file that did not import, saying how (its exception, a timeout, a
    crash), for the student; and whether the grader was disturbed."""
    problems = []
    if result.disturbed:
        count = len(result.disturbed)
        problems.append(DISTURBED.format(count=f"{count} case{'s' if count != 1 else ''}"))
    for name in lab.graded_files:
        outcome = result.imports.get(name)
        if outcome is None or outcome.status == OutcomeStatus.OK:
            continue
        if outcome.status == OutcomeStatus.ERROR:
            error = outcome.error or {}
            where = "\n".join(error.get("traceback", []))
            raised = f"{error['type']}: {error.get('message')}" if error.get("type") else "it raised an exception"
            problems.append(
                f"{lab.package}/{name} could not be imported: {raised}"
                + (f"\n{where}" if where else "")
                + f"\n{NOTHING_GRADED}"
            )
            continue
        how = IMPORT_FAILED.get(outcome.status, "it was not imported")
        seen = f" ({outcome.detail})" if outcome.detail else ""
        problems.append(f"{lab.package}/{name} could not be imported: {how}{seen}. {TOP_LEVEL_HINT} {NOTHING_GRADED}")
    return problems


def flags(lab: Lab, result: SandboxResult, calls: list[Call]) -> list[Flag]:
    """Crashes, timeouts and limits, for the instructor."""
    trouble: dict[tuple[str, OutcomeStatus], int] = {}
    for call, outcome in zip(calls, result.outcomes):
        if outcome is not None and outcome.status in _TROUBLE:
            trouble[(call.fn, outcome.status)] = trouble.get((call.fn, outcome.status), 0) + 1
    flags = [
        Flag(FlagKind(str(status)), f"{function} ({count} call{'s' if count > 1 else ''})")
        for (function, status), count in sorted(trouble.items())
    ]
    flags += [
        Flag(FlagKind(str(outcome.status)), f"importing {lab.package}/{name} ({outcome.detail})")
        for name, outcome in sorted(result.imports.items())
        if outcome.status in _TROUBLE
    ]
    flags += [
        Flag(FlagKind.UNIMPORTED, f"{lab.package}/{name} raised {(outcome.error or {}).get('type', 'an exception')}")
        for name, outcome in sorted(result.imports.items())
        if outcome.status == OutcomeStatus.ERROR
    ]
    flags += [Flag(FlagKind.LIMIT, note) for note in result.notes]
    flags += [Flag(FlagKind.LIMIT, OVERALL_TIME) for stop in result.stops.values() if stop == _OVERALL]
    flags += [Flag(FlagKind.GRADER, f"disturbed: {note}") for note in result.disturbed]
    imported = sorted({(module.split(".")[0], where) for module, where in result.disallowed_imports})
    flags += [Flag(FlagKind.IMPORT, f"{module} (not allowed), imported by {where}") for module, where in imported]
    if result.output_dropped:
        flags.append(Flag(FlagKind.OUTPUT, "printed more than the output limit"))
    return flags


def overall_time_ran_out(result: SandboxResult) -> None:
    """The calls the runner did not run because the platform's overall deadline came first (their
    ``StopReason``), in the grader's words."""
    for index, outcome in enumerate(result.outcomes):
        if outcome is not None and outcome.status == OutcomeStatus.NOT_RUN and outcome.stop == _OVERALL:
            result.outcomes[index] = Outcome(status=OutcomeStatus.NOT_RUN, detail=OVERALL_TIME, stop=_OVERALL)
