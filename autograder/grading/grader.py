"""Grading one submission, as a declared list of named stages (``STAGES``, in order, as nbgrader
declares its preprocessors): each stage is a function that takes the submission's ``Grading`` (what
it came with and what the stages before found) and returns it with its own part added. A stage that
ends grading early (no graded file, no time left) sets ``result``, and the stages after it do not run.

``grade`` never raises for anything a submission does: every failure becomes part of the
``SubmissionResult``. Only the grader's own bugs escape, and ``session`` records those too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autograder import tempdirs
from autograder.grading import counterexamples, intake, payloads, runfile_checks, sandbox_report, scoring
from autograder.grading.diagnosis import answers as diagnosis
from autograder.grading.integrity import answer_tables, libraries
from autograder.grading.plan import Plan, PlannedCase, SubmissionPlan, fresh_seed
from autograder.grading.results import CheckResult, Counterexample, Diagnosis, Flag, FlagKind, Status, SubmissionResult
from autograder.grading.sandbox_report import OVERALL_TIME, ungraded
from autograder.sandbox import runner
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult
from autograder.sandbox.settings import Call, Isolation, Limits, Package


def _no_submission() -> SubmissionPlan:
    return SubmissionPlan(calls=[], planned=[], scenario_calls={}, seed="", random_calls=0, secret_start=0)


@dataclass(frozen=True)
class Grading:
    """One submission on its way through ``STAGES``: what grading was given, then what each stage adds."""

    staged: intake.Staged
    plan: Plan
    isolation: Isolation
    limits: Limits
    slot: int = 0
    deadline: float | None = None  # a platform's overall limit (``time.monotonic()``)
    seed: str | None = None  # the random cases' seed; None draws a fresh one
    started: float = 0.0  # ``time.monotonic()`` when grading began
    common: dict[str, Any] = field(default_factory=dict)  # the result's fields every ending shares (intake)
    notes: tuple[Flag, ...] = ()  # what intake ignored in the files (intake)
    submission: SubmissionPlan = field(default_factory=_no_submission)  # its calls and cases (plan)
    calls: tuple[Call, ...] = ()  # the calls as the sandbox runs them (plan)
    run: SandboxResult = field(default_factory=lambda: SandboxResult(outcomes=[]))  # what the sandbox saw (sandbox)
    zeroed: dict[str, str] = field(default_factory=dict)  # graded file -> why its checks get nothing (integrity)
    integrity: tuple[Flag, ...] = ()  # libraries used, answer tables (integrity)
    unimported: frozenset[str] = frozenset()  # the graded files that did not import (run files)
    files: dict[str, runfile_checks.RunFile] = field(default_factory=dict)  # the run files written (run files)
    # the public run files the counterexample search read, each with its outcome (sandbox): not read again
    read_early: dict[str, tuple[Outcome, runfile_checks.RunFile]] = field(default_factory=dict)
    checks: tuple[CheckResult, ...] = ()  # scored (score), then explained (diagnose, counterexamples)
    # function -> (the check its start case belongs to, its smallest counterexample) (sandbox)
    counterexamples: dict[str, tuple[str, Counterexample]] = field(default_factory=dict)
    search_problem: str = ""  # why the counterexamples' search failed, for the instructor's log (sandbox)
    answers_changed: dict[str, tuple[str, Diagnosis]] = field(default_factory=dict)  # ``Finder.changed``
    result: SubmissionResult | None = None  # set by the stage that ends grading


Step = Callable[[Grading], Grading]


@dataclass(frozen=True)
class Stage:
    name: str
    run: Step


def _intake(state: Grading) -> Grading:
    """The result's shared fields and intake's notes; a submission without graded files ends here."""
    staged, plan = state.staged, state.plan
    common: dict[str, Any] = {
        "submission": staged.source.id,
        "students": staged.source.students,
        "rubric_digest": plan.rubric.digest,
        "reference_digest": plan.reference_digest,
        "grader_digest": plan.key[:16],
        "isolation": str(state.isolation.mode),
        "files": dict(staged.digests),
    }
    notes = tuple(Flag(FlagKind.FILES, note) for note in staged.notes)
    if staged.files:
        return replace(state, common=common, notes=notes)
    failed = SubmissionResult.failed(
        problems=tuple(staged.problems),
        flags=notes,
        checks=ungraded(plan, "not graded: " + "; ".join(staged.problems)),
        execution_time=time.monotonic() - state.started,
        **common,
    )
    return replace(state, common=common, notes=notes, result=failed)


def _time_left(state: Grading) -> Grading:
    """A submission whose grading starts after the platform's overall deadline ends here."""
    if state.deadline is None or state.started < state.deadline:
        return state
    failed = SubmissionResult.failed(
        problems=(OVERALL_TIME,),
        flags=state.notes + (Flag(FlagKind.LIMIT, OVERALL_TIME),),
        checks=ungraded(state.plan, OVERALL_TIME),
        execution_time=0.0,
        **state.common,
    )
    return replace(state, result=failed)


def _plan(state: Grading) -> Grading:
    """This grading's calls and cases, its random ones drawn from its seed."""
    submission = state.plan.for_submission(state.seed or fresh_seed())
    return replace(state, submission=submission, calls=tuple(payloads.calls(state.plan.lab, submission)))


def _sandbox(state: Grading) -> Grading:
    """Every call run in the sandbox, on the submission's files written as the package; calls the
    platform's overall deadline stopped say so. Between the public calls and the secret ones, the
    smallest counterexample of each function that failed a public case is looked for
    (``counterexamples.Finder``), in children of its own."""
    package = Package(state.plan.lab.package, state.plan.lab.graded_files)
    with tempdirs.folder("submission-") as temporary:
        folder = Path(temporary)
        os.chmod(folder, 0o711)
        lab = intake.write_package(state.staged, folder / "lab", state.plan.lab)

        def run_calls(
            calls: list[Call],
            payload: Callable[[int], bytes],
            live: Callable[[SandboxResult], None],
            limits: Limits,
            seconds: float,
        ) -> SandboxResult:
            end = time.monotonic() + seconds
            deadline = end if state.deadline is None else min(end, state.deadline)
            return runner.run(
                lab,
                calls,
                payload,
                limits,
                state.isolation,
                state.slot,
                overall_deadline=deadline,
                package=package,
                live=live,
            )

        finder = counterexamples.Finder(state.plan, state.submission, run_calls, state.limits, state.deadline)
        result = runner.run(
            lab,
            list(state.calls),
            payloads.payloads(state.plan, state.submission),
            state.limits,
            state.isolation,
            state.slot,
            overall_deadline=state.deadline,
            package=package,
            after_public=finder.after_public,
        )
    sandbox_report.overall_time_ran_out(result)  # the runner says which limit stopped it (``StopReason``)
    return replace(
        state,
        run=result,
        counterexamples=finder.found,
        search_problem=finder.problem,
        answers_changed=finder.changed,
        read_early=finder.files,
    )


def _integrity(state: Grading) -> Grading:
    """The evaluation libraries the files use (the functions that lose their points for it) and
    the answer tables they may hold."""
    lab = state.plan.lab
    scans = {name: libraries.scan(lab, data) for name, data in state.staged.files.items()}
    banned = state.run.banned_imports
    flags = libraries.flags(lab, scans, banned) + answer_tables.flags(lab.package, state.staged.files, lab.functions)
    return replace(state, zeroed=libraries.zeroed(lab, scans, banned), integrity=tuple(flags))


def _run_files(state: Grading) -> Grading:
    """The files that did not import, and the run files the run writer left, read once."""
    imports = state.run.imports
    unimported = frozenset(name for name, outcome in imports.items() if outcome.status != OutcomeStatus.OK)
    files = runfile_checks.read_all(
        state.plan, state.run.outcomes, unimported, state.submission.scenario_calls, state.read_early
    )
    return replace(state, unimported=unimported, files=files)


def _score(state: Grading) -> Grading:
    """Every case judged, every check scored."""
    checks = scoring.score_checks(
        state.plan, state.submission.planned, state.run.outcomes, state.zeroed, state.files, state.unimported
    )
    return replace(state, checks=checks)


def diagnosed(
    plan: Plan,
    planned: list[PlannedCase],
    outcomes: list[Any],
    checks: tuple[CheckResult, ...],
    files: dict[str, Any],
) -> tuple[CheckResult, ...]:
    """The checks with what explains their lost points: misconceptions, conditions, shapes."""
    failing = {check.function for check in checks if not check.full and not check.note}
    if not failing:
        return checks
    found = diagnosis.diagnose(plan, planned, outcomes, failing, files, checks)
    return tuple(
        replace(check, diagnoses=tuple(found.get(check.name, ()))) if not check.full and check.name in found else check
        for check in checks
    )


def _diagnose(state: Grading) -> Grading:
    """What explains each failing check's lost points."""
    checks = diagnosed(state.plan, state.submission.planned, state.run.outcomes, state.checks, state.files)
    return replace(state, checks=checks)


def _counterexamples(state: Grading) -> Grading:
    """Each failing function's smallest counterexample, on the check its start case belongs to."""
    checks = counterexamples.said_again(state.checks, state.answers_changed)
    return replace(state, checks=counterexamples.attach(checks, state.counterexamples))


def _result(state: Grading) -> Grading:
    """The submission's result: its checks, problems, flags, output and log."""
    run = state.run
    result = SubmissionResult(
        status=Status.GRADED,
        checks=state.checks,
        problems=tuple(state.staged.problems + sandbox_report.import_problems(state.plan.lab, run)),
        flags=tuple(
            state.notes + state.integrity + tuple(sandbox_report.flags(state.plan.lab, run, list(state.calls)))
        ),
        output=(run.stdout + ("\n" + run.stderr if run.stderr.strip() else "")).strip(),
        hidden_output=run.hidden_output,
        random_seed=state.submission.seed,
        instructor_log=f"isolation {state.isolation.mode}{'' if run.uid is None else f' as uid {run.uid}'}, "
        f"{run.restarts} restart(s), child time {run.elapsed:.2f} s"
        + (f"; the counterexamples' search failed: {state.search_problem}" if state.search_problem else ""),
        execution_time=round(time.monotonic() - state.started, 3),
        **state.common,
    )
    return replace(state, result=result)


#: The grading of one submission, in order (docs/ARCHITECTURE.md, "The life of one submission").
STAGES: tuple[Stage, ...] = (
    Stage("intake", _intake),
    Stage("time left", _time_left),
    Stage("plan", _plan),
    Stage("sandbox", _sandbox),
    Stage("integrity", _integrity),
    Stage("run files", _run_files),
    Stage("score", _score),
    Stage("diagnose", _diagnose),
    Stage("counterexamples", _counterexamples),
    Stage("result", _result),
)


def run_stages(state: Grading, stages: tuple[Stage, ...] = STAGES) -> SubmissionResult:
    """``state`` through ``stages`` in order, until one sets its result."""
    for stage in stages:
        state = stage.run(state)
        if state.result is not None:
            return state.result
    raise ValueError(f"no stage of {[stage.name for stage in stages]} made a result")


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
    state = Grading(
        staged=staged,
        plan=plan,
        isolation=isolation,
        limits=limits,
        slot=slot,
        deadline=deadline,
        seed=seed,
        started=time.monotonic(),
    )
    return run_stages(state)
