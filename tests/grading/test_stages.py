"""The grading of one submission as a declared list of named stages (``grading/grader.py: STAGES``):
their order, and each stage on its own, given a ``Grading`` as the stages before it leave it."""

from __future__ import annotations

import copy
import time
from dataclasses import replace

import pytest

from autograder import paths
from autograder.grading import grader, intake, sandbox_report
from autograder.grading.grader import STAGES, Grading, Stage
from autograder.grading.results import Flag, FlagKind, Status, SubmissionResult
from autograder.grading.sandbox_report import OVERALL_TIME
from autograder.lab.spec import GRADED_FILES
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult, StopReason
from autograder.sandbox.settings import Isolation, Mode
from tests.support.inprocess import answers
from tests.support.truth import Grader

OWN_TIME = "the submission's time limit ran out"  # how the runner words its own limit


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    """The plan, a submission's calls and the reference's answers to them (in this process)."""
    return Grader(cranfield, tmp_path_factory.mktemp("stages"))


def _source_files(graded) -> dict:
    """The reference's graded files, as a submission's bytes."""
    return {file: paths.solution_file(file).read_bytes() for file in GRADED_FILES}


def _state(graded, files: dict | None = None, **changes) -> Grading:
    staged = intake.Staged(intake.Source("s1", graded.folder), files=_source_files(graded) if files is None else files)
    state = Grading(staged, graded.plan, Isolation(Mode.NONE, "python3"), graded.plan.rubric.limits)
    return replace(state, started=time.monotonic(), **changes)


def _right(graded) -> list:
    """The reference's answers, a copy (reading a run file lets its text go)."""
    return copy.deepcopy(graded.right)


def _planned(graded, **changes) -> Grading:
    return grader._plan(replace(_state(graded), seed="true-diagnoses", **changes))


def test_the_stages_are_declared_in_order():
    """Is the grading of one submission the declared list of named stages, in this order, each a function?"""
    assert [stage.name for stage in STAGES] == [
        "intake",
        "time left",
        "plan",
        "sandbox",
        "integrity",
        "run files",
        "score",
        "diagnose",
        "counterexamples",
        "result",
    ]
    assert all(callable(stage.run) for stage in STAGES)


def test_stages_run_in_order_until_one_makes_the_result(graded):
    """Does ``run_stages`` stop at the first stage that sets a result (the later ones never run), and
    refuse a list of stages none of which makes one?"""
    seen = []

    def note(name, ends=False):
        def step(state):
            seen.append(name)
            return replace(state, result=SubmissionResult.failed("s1", (name,))) if ends else state

        return step

    stages = (Stage("a", note("a")), Stage("b", note("b", ends=True)), Stage("c", note("c")))
    assert grader.run_stages(_state(graded), stages).problems == ("b",)
    assert seen == ["a", "b"]
    with pytest.raises(ValueError, match="no stage of"):
        grader.run_stages(_state(graded), stages[:1])


@pytest.mark.parametrize(
    "files, ends",
    [({}, True), (None, False)],
    ids=["no graded file", "both graded files"],
)
def test_intake(graded, files, ends):
    """Does intake record the result's shared fields and intake's notes, and end grading (every check
    ungraded, saying why) only when no graded file was read?"""
    state = _state(graded, files)
    state = replace(state, staged=replace(state.staged, notes=["ignored extra.py"], problems=["no metrics.py"]))
    after = grader._intake(state)
    assert after.common["submission"] == "s1" and after.common["files"] == dict(state.staged.digests)
    assert after.notes == (Flag(FlagKind.FILES, "ignored extra.py"),)
    assert (after.result is not None) == ends
    if ends:
        assert after.result.status == Status.ERROR and after.result.problems == ("no metrics.py",)
        assert len(after.result.checks) == len(graded.plan.rubric.checks)
        assert all(check.score == 0 and check.note.startswith("not graded") for check in after.result.checks)


@pytest.mark.parametrize(
    "deadline, ends",
    [(None, False), (3600.0, False), (-1.0, True)],
    ids=["no overall deadline", "an hour left", "already past"],
)
def test_time_left(graded, deadline, ends):
    """Does grading end before anything runs, every check ungraded, only when the platform's overall
    deadline has already passed?"""
    state = grader._intake(_state(graded))
    state = replace(state, deadline=None if deadline is None else state.started + deadline)
    after = grader._time_left(state)
    assert (after.result is not None) == ends
    if ends:
        assert after.result.problems == (OVERALL_TIME,)
        assert Flag(FlagKind.LIMIT, OVERALL_TIME) in after.result.flags
        assert {check.note for check in after.result.checks} == {OVERALL_TIME}


def test_plan(graded):
    """Does the plan stage draw the calls from the seed given (the same seed, the same calls), and a
    fresh seed when none is?"""
    first, again = _planned(graded), _planned(graded)
    assert first.submission.seed == "true-diagnoses" and first.calls == again.calls
    assert len(first.calls) == len(first.submission.calls) > 0
    assert [call.fn for call in first.calls] == [call["fn"] for call in first.submission.calls]
    assert grader._plan(_state(graded)).submission.seed not in ("", "true-diagnoses")


@pytest.mark.parametrize(
    "deadline, reworded",
    [(None, False), (3600.0, False), (-1.0, True)],
    ids=["no overall deadline", "overall deadline not reached", "overall deadline passed"],
)
def test_sandbox(graded, monkeypatch, deadline, reworded):
    """Does the sandbox stage run every planned call on the submission's files, written as the
    package, and reword the calls the runner did not run only when its stop reason says the
    platform's overall deadline ran out (which the instructor's flags then name)?"""
    state = _planned(graded)
    state = replace(state, deadline=None if deadline is None else state.started + deadline)
    asked = {}

    def run(lab, calls, payloads, limits, isolation, slot, overall_deadline=None, package=None, after_public=None):
        asked.update(written=sorted(path.name for path in lab.rglob("*.py")), calls=calls, deadline=overall_deadline)
        overall = overall_deadline is not None and time.monotonic() >= overall_deadline  # as the runner decides
        stop = StopReason.OVERALL_TIME_LIMIT if overall else StopReason.TIME_LIMIT
        return SandboxResult(
            outcomes=[Outcome(OutcomeStatus.NOT_RUN, detail=OWN_TIME, stop=stop) for _ in calls],
            notes=[] if overall else [OWN_TIME],
            stops=dict.fromkeys(GRADED_FILES, stop),
        )

    monkeypatch.setattr(grader.runner, "run", run)
    after = grader._sandbox(state)
    assert set(GRADED_FILES) <= set(asked["written"])
    assert asked["calls"] == list(state.calls) and asked["deadline"] == state.deadline
    wanted = OVERALL_TIME if reworded else OWN_TIME
    assert {outcome.detail for outcome in after.run.outcomes} == {wanted}
    limits = [
        flag.text
        for flag in sandbox_report.flags(default_lab(), after.run, list(state.calls))
        if flag.kind == FlagKind.LIMIT
    ]
    assert set(limits) == {wanted}


@pytest.mark.parametrize(
    "imports, zeroed",
    [("", False), ("import ir_measures\n", True), ("from pytrec_eval import RelevanceEvaluator\n", True)],
    ids=["no library", "ir_measures", "pytrec_eval"],
)
def test_integrity(graded, imports, zeroed):
    """Does the integrity stage zero metrics.py's checks, and flag it, exactly when the file imports an
    evaluation library?"""
    files = _source_files(graded)
    files["metrics.py"] = imports.encode() + files["metrics.py"]
    after = grader._integrity(_state(graded, files))
    assert bool(after.zeroed) == zeroed
    assert any(flag.kind == FlagKind.LIBRARY for flag in after.integrity) == zeroed


@pytest.mark.parametrize("broken", [(), ("metrics.py",), ("runs.py",), GRADED_FILES], ids=str)
def test_run_files(graded, broken):
    """Does the run-files stage name the graded files that did not import, and read a run file for
    every scenario of the run writer?"""
    state = _planned(graded)
    imports = {
        name: Outcome(OutcomeStatus.ERROR if name in broken else OutcomeStatus.OK, error={"type": "SyntaxError"})
        for name in GRADED_FILES
    }
    after = grader._run_files(replace(state, run=SandboxResult(_right(graded), imports=imports)))
    assert after.unimported == frozenset(broken)
    assert set(after.files) == set(state.submission.scenario_calls)


def _scored(graded, outcomes, zeroed=None) -> Grading:
    state = replace(_planned(graded), run=SandboxResult(list(outcomes)), zeroed=zeroed or {})
    return grader._score(grader._run_files(state))


@pytest.mark.parametrize(
    "answered, zeroed, full",
    [("reference", False, "all"), ("nothing", False, "none"), ("reference", True, "runs.py only")],
    ids=["the reference's answers", "no call run", "the library rule"],
)
def test_score(graded, answered, zeroed, full):
    """Does the score stage judge and score every check of the rubric: full marks for the reference's
    answers, none when no call ran, and none for metrics.py's checks under the library rule?"""
    outcomes = (
        _right(graded)
        if answered == "reference"
        else [Outcome(OutcomeStatus.NOT_RUN, detail="not run") for _ in graded.right]
    )
    rule = {"metrics.py": "no credit: uses ir_measures"} if zeroed else None
    checks = _scored(graded, outcomes, rule).checks
    assert len(checks) == len(graded.plan.rubric.checks)
    fulls = {check.name for check in checks if check.full}
    writer = {check.name for check in checks if check.function == "write_run"}
    assert fulls == {"all": {c.name for c in checks}, "none": set(), "runs.py only": writer}[full]


def _rank_off_by_one(ranking, judgments, rel=1):
    """reciprocal_rank, counting ranks from 0."""
    for index, doc in enumerate(ranking):
        if judgments.get(doc, 0) >= rel:
            return 1 / (index + 2)
    return 0.0


def test_diagnose(graded):
    """Does the diagnose stage leave full checks as they are, and explain a reciprocal_rank one rank
    off on the checks it fails?"""
    full = _scored(graded, _right(graded))
    assert grader._diagnose(full).checks == full.checks
    wrong = answers(
        {"reciprocal_rank": _rank_off_by_one},
        graded.plan,
        full.submission,
        graded.folder,
        {"reciprocal_rank"},
        _right(graded),
    )
    after = grader._diagnose(_scored(graded, wrong))
    failing = [c for c in after.checks if c.function == "reciprocal_rank" and not c.full and not c.note]
    assert failing and all(check.diagnoses for check in failing)
    assert all(not check.diagnoses for check in after.checks if check.full)


def test_result(graded):
    """Does the result stage build a graded result with its checks, the import problems, the flags in
    order (intake's notes, integrity's, then the sandbox's), the output printed and the seed?"""
    run = SandboxResult(
        [],
        imports={"metrics.py": Outcome(OutcomeStatus.ERROR, error={"type": "SyntaxError", "message": "bad"})},
        stdout="printed\n",
        stderr="warned\n",
    )
    state = replace(
        _planned(graded),
        run=run,
        notes=(Flag(FlagKind.FILES, "ignored extra.py"),),
        integrity=(Flag(FlagKind.LIBRARY, "lab05/metrics.py imports ir_measures"),),
        common={"submission": "s1"},
    )
    result = grader._result(state).result
    assert result.status == Status.GRADED and result.submission == "s1"
    assert result.output == "printed\n\nwarned" and result.random_seed == "true-diagnoses"
    assert [flag.kind for flag in result.flags] == [FlagKind.FILES, FlagKind.LIBRARY, FlagKind.UNIMPORTED]
    assert len(result.problems) == 1 and "SyntaxError: bad" in result.problems[0]
