"""Grading one submission: run its calls in a sandbox, judge, score, diagnose.

``grade`` never raises for anything a submission does: every failure becomes part of the
``SubmissionResult``. Only the grader's own bugs escape, and ``session`` records those too.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from autograder import tempdirs
from autograder.grading import intake, payloads, runfile_checks, scoring
from autograder.grading.diagnosis import answers as diagnosis
from autograder.grading.integrity import answer_tables, libraries
from autograder.grading.plan import Plan, fresh_seed
from autograder.grading.results import CheckResult, Flag, FlagKind, Status, SubmissionResult
from autograder.lab.spec import GRADED_FILES, PACKAGE
from autograder.sandbox import runner
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult, StopReason
from autograder.sandbox.settings import Isolation, Limits, Package

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


def import_problems(result: SandboxResult) -> list[str]:
    """A sentence per graded file that did not import, saying how (its exception, a timeout, a
    crash), for the student; and whether the grader was disturbed."""
    problems = []
    if result.disturbed:
        count = len(result.disturbed)
        problems.append(DISTURBED.format(count=f"{count} case{'s' if count != 1 else ''}"))
    for name in GRADED_FILES:
        outcome = result.imports.get(name)
        if outcome is None or outcome.status == OutcomeStatus.OK:
            continue
        if outcome.status == OutcomeStatus.ERROR:
            error = outcome.error or {}
            where = "\n".join(error.get("traceback", []))
            raised = f"{error['type']}: {error.get('message')}" if error.get("type") else "it raised an exception"
            problems.append(
                f"{PACKAGE}/{name} could not be imported: {raised}"
                + (f"\n{where}" if where else "")
                + f"\n{NOTHING_GRADED}"
            )
            continue
        how = IMPORT_FAILED.get(outcome.status, "it was not imported")
        seen = f" ({outcome.detail})" if outcome.detail else ""
        problems.append(f"{PACKAGE}/{name} could not be imported: {how}{seen}. {TOP_LEVEL_HINT} {NOTHING_GRADED}")
    return problems


def _flags(result: SandboxResult, calls: list) -> list[Flag]:
    """Crashes, timeouts and limits, for the instructor."""
    trouble: dict[tuple, int] = {}
    for call, outcome in zip(calls, result.outcomes):
        if outcome is not None and outcome.status in _TROUBLE:
            trouble[(call.fn, outcome.status)] = trouble.get((call.fn, outcome.status), 0) + 1
    flags = [
        Flag(FlagKind(str(status)), f"{function} ({count} call{'s' if count > 1 else ''})")
        for (function, status), count in sorted(trouble.items())
    ]
    flags += [
        Flag(FlagKind(str(outcome.status)), f"importing {PACKAGE}/{name} ({outcome.detail})")
        for name, outcome in sorted(result.imports.items())
        if outcome.status in _TROUBLE
    ]
    flags += [
        Flag(FlagKind.UNIMPORTED, f"{PACKAGE}/{name} raised {(outcome.error or {}).get('type', 'an exception')}")
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


def _diagnosed(plan, planned, outcomes, checks, files) -> tuple[CheckResult, ...]:
    """The checks with what explains their lost points: misconceptions, conditions, shapes."""
    failing = {check.function for check in checks if not check.full and not check.note}
    if not failing:
        return checks
    found = diagnosis.diagnose(plan, planned, outcomes, failing, files, checks)
    return tuple(
        replace(check, diagnoses=tuple(found.get(check.name, ()))) if not check.full and check.name in found else check
        for check in checks
    )


def _overall_time_ran_out(result: SandboxResult) -> None:
    """The calls the runner did not run because the platform's overall deadline came first, in the
    grader's words."""
    for index, outcome in enumerate(result.outcomes):
        if outcome is not None and outcome.status == OutcomeStatus.NOT_RUN and outcome.stop == _OVERALL:
            result.outcomes[index] = Outcome(status=OutcomeStatus.NOT_RUN, detail=OVERALL_TIME, stop=_OVERALL)


def grade(
    staged: intake.Staged,
    plan: Plan,
    isolation: Isolation,
    limits: Limits,
    slot: int = 0,
    deadline: float | None = None,
    seed: str | None = None,
) -> SubmissionResult:
    """Grade one submission read by ``intake``; the result holds its score, cases, problems and
    flags. ``deadline`` (``time.monotonic()``): a platform's overall limit; calls not started by
    then are not run, and say why. ``seed``: the random cases' seed (a fresh one by default; a
    regrade of the same files passes the stored one to draw the same cases)."""
    started = time.monotonic()
    common: dict[str, Any] = {
        "submission": staged.source.id,
        "students": staged.source.students,
        "rubric_digest": plan.rubric.digest,
        "reference_digest": plan.reference_digest,
        "grader_digest": plan.key[:16],
        "isolation": str(isolation.mode),
        "files": dict(staged.digests),
    }
    notes = [Flag(FlagKind.FILES, note) for note in staged.notes]
    if not staged.files:
        return SubmissionResult.failed(
            problems=tuple(staged.problems),
            flags=tuple(notes),
            checks=ungraded(plan, "not graded: " + "; ".join(staged.problems)),
            execution_time=time.monotonic() - started,
            **common,
        )
    if deadline is not None and started >= deadline:
        return SubmissionResult.failed(
            problems=(OVERALL_TIME,),
            flags=tuple(notes + [Flag(FlagKind.LIMIT, OVERALL_TIME)]),
            checks=ungraded(plan, OVERALL_TIME),
            execution_time=0.0,
            **common,
        )
    submission = plan.for_submission(seed or fresh_seed())
    calls = payloads.calls(submission)
    with tempdirs.folder("lab05-submission-") as temporary:
        folder = Path(temporary)
        os.chmod(folder, 0o711)
        lab = intake.write_package(staged, folder / "lab")
        result = runner.run(
            lab,
            calls,
            payloads.payloads(plan, submission),
            limits,
            isolation,
            slot,
            overall_deadline=deadline,
            package=Package(PACKAGE, GRADED_FILES),
        )
    _overall_time_ran_out(result)
    scans = {name: libraries.scan(data) for name, data in staged.files.items()}
    planned = submission.planned
    unimported = frozenset(name for name, outcome in result.imports.items() if outcome.status != OutcomeStatus.OK)
    files = runfile_checks.read_all(plan, result.outcomes, unimported, submission.scenario_calls)
    zeroed = libraries.zeroed(scans, result.banned_imports)
    checks = scoring.score_checks(plan, planned, result.outcomes, zeroed, files, unimported)
    checks = _diagnosed(plan, planned, result.outcomes, checks, files)
    return SubmissionResult(
        status=Status.GRADED,
        checks=checks,
        problems=tuple(staged.problems + import_problems(result)),
        flags=tuple(
            notes
            + libraries.flags(scans, result.banned_imports)
            + answer_tables.flags(staged.files)
            + _flags(result, calls)
        ),
        output=(result.stdout + ("\n" + result.stderr if result.stderr.strip() else "")).strip(),
        hidden_output=result.hidden_output,
        random_seed=submission.seed,
        instructor_log=f"isolation {isolation.mode}{'' if result.uid is None else f' as uid {result.uid}'}, "
        f"{result.restarts} restart(s), child time {result.elapsed:.2f} s",
        execution_time=round(time.monotonic() - started, 3),
        **common,
    )
