"""The one result model: a submission's grade as an immutable object.

Grading builds it; renderers (``reports``) read it and return text; only the platform edges
write files. ``student_view`` derives, once, what a student may see: hidden cases lose their
expected values and every message that holds one. ``to_dict``/``from_dict`` store the full
record (``grade.json``) so batches can resume and reports can be rebuilt without grading again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, cast

from autograder.grading.course.deadlines import Late

# isort: off
# (one statement: isort would give each explicit re-export, ``X as X``, its own)
from autograder.grading.vocabulary import (  # the model's vocabulary, re-exported: read through here
    FAILURES as FAILURES,
    HIDDEN_STATES as HIDDEN_STATES,
    NO_RUN_FILE as NO_RUN_FILE,
    NOT_IMPLEMENTED_ERRORS as NOT_IMPLEMENTED_ERRORS,
    WRONG_FORMAT as WRONG_FORMAT,
    CaseStatus as CaseStatus,
    Diagnosis as Diagnosis,
    DiagnosisKind as DiagnosisKind,
    Flag as Flag,
    FlagKind as FlagKind,
    Status as Status,
    hidden_state as hidden_state,
    points as points,
    shown_error as shown_error,
)

# isort: on
from autograder.labkit.kinds import CheckKind
from autograder.strenum import StrEnum

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True)
class CaseResult:
    id: str
    description: str  # what was tested (shown to students also for hidden cases)
    public: bool  # the call, expected and actual may be shown to students
    status: CaseStatus
    message: str = ""  # the verdict in words ("returned 0.6, expected 0.3")
    call: str = ""  # the call as text
    expected: object = None  # JSON-able; instructors only unless public
    actual: object = None  # JSON-able decoded value, when there was one
    traceback: tuple[str, ...] = ()  # the student's own traceback lines
    hint: str = ""  # what a wrong value usually means (public cases: the notes' hint)
    raised: str = ""  # the class of the exception the call raised, if it did
    mro: tuple[str, ...] = ()  # the built-in classes it derives from, nearest first
    groups: tuple[str, ...] = ()  # what it tests, for scoring by groups (its own id when empty)
    told: str = ""  # what a hidden case may add to "wrong" (``WRONG_FORMAT``, ``NO_RUN_FILE``; nothing else is shown)

    @property
    def passed(self) -> bool:
        return self.status == CaseStatus.PASS

    @property
    def why(self) -> CaseStatus | None:
        """Why it did not pass (None when it passed), one of ``FAILURES``: its status, but a call that
        raised NotImplementedError is not implemented and a timeout counts as a crash."""
        if self.passed:
            return None
        if self.raised in NOT_IMPLEMENTED_ERRORS and self.status in (CaseStatus.FAIL, CaseStatus.ERROR):
            return CaseStatus.NOT_IMPLEMENTED
        return CaseStatus.CRASH if self.status == CaseStatus.TIMEOUT else self.status

    def for_student(self) -> CaseResult:
        """What the student may see: a hidden case keeps what was tested (its label) and how it
        went, in words of the fixed vocabulary alone (``hidden_state``: wrong answer, wrong file
        format, raised one of ``SHOWN_ERRORS``, crashed, timed out, not run...), nothing the code
        could derive from its inputs or shape: not the expected value, not the returned one, not
        the exception's message, class name or traceback, not how the process ended, no count,
        line or position."""
        if self.public:
            return self
        return CaseResult(
            id=self.id,
            description=self.description,
            public=False,
            status=self.status,
            message=hidden_state(self.status, self.raised, self.mro, self.told),
            raised=shown_error(self.raised, self.mro),
            groups=self.groups,
        )


PROBE = "probe-"  # the start of a counterexample's ``start`` shrunk from a probe (no graded case)


@dataclass(frozen=True)
class Counterexample:
    """The smallest input found on which a function is still wrong (``grading/counterexamples.py``),
    shrunk from one of its failing public cases, never from a hidden one: shown with both answers."""

    call: str  # the call as text
    expected: object  # the right answer (JSON-able), from the lab's reference
    actual: object  # the student's answer on it (decoded JSON), None when it raised
    raised: str = ""  # what it raised instead, in words ("raised ValueError: ...")
    size: int = 0  # its documents and judgments
    start_size: int = 0  # those of the public case it came from
    start: str = ""  # that case's id
    calls: int = 0  # the calls of the function shrinking it took
    stopped_early: bool = False  # the calls or the time allowed ran out first: a smaller one may exist
    unit: str = (
        ""  # what ``size`` counts: "" a case's documents and judgments, "scenario" a run writer's queries and results
    )


@dataclass(frozen=True)
class CheckResult:
    name: str  # "<function>: <what it checks>"
    question: str
    function: str
    kind: CheckKind
    max_score: float
    score: float
    visibility: str
    cases: tuple[CaseResult, ...] = ()
    note: str = ""  # why the score is what it is beyond the cases (e.g. library use)
    diagnoses: tuple[Diagnosis, ...] = ()  # Diagnosis: named misconceptions the outputs match
    scoring: str = "proportional"  # how its cases became its points (``grading.rubric.SCORING``)
    counterexample: Counterexample | None = None  # its function's smallest failing input, from this check's cases

    @property
    def passed(self) -> int:
        return sum(case.passed for case in self.cases)

    @property
    def full(self) -> bool:
        return self.score >= self.max_score


class FunctionState(StrEnum):
    """Where one function of the API stands, derived from its cases' ``why`` (``FunctionResult``)."""

    FULL = "full marks"
    NO_CREDIT = "no credit"  # the library-use rule
    NOT_GRADED = "not graded"  # no case was run (nothing graded, the grader failed)
    NOT_IMPORTABLE = "not importable"  # its graded file did not import
    NOT_IMPLEMENTED = "not implemented"  # the stub left, or the function deleted
    CRASHED = "crashed"  # crashed or hung (and its other cases were skipped)
    RAISED = "raises an error"
    WRONG = "wrong"


# which state a function's most frequent kind of failure gives it (ties: the first listed)
_STATE_OF = {
    CaseStatus.NOT_IMPORTED: FunctionState.NOT_IMPORTABLE,
    CaseStatus.NOT_IMPLEMENTED: FunctionState.NOT_IMPLEMENTED,
    CaseStatus.CRASH: FunctionState.CRASHED,
    CaseStatus.NOT_RUN: FunctionState.CRASHED,
    CaseStatus.ERROR: FunctionState.RAISED,
    CaseStatus.FAIL: FunctionState.WRONG,
}


@dataclass(frozen=True)
class FunctionResult:
    """One function's checks and where it stands: the unit of the feedback's summary."""

    function: str
    question: str
    checks: tuple[CheckResult, ...]

    @property
    def score(self) -> float:
        return round(sum(check.score for check in self.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(check.max_score for check in self.checks), 4)

    @property
    def cases(self) -> int:
        return sum(len(check.cases) for check in self.checks)

    @property
    def passed(self) -> int:
        return sum(check.passed for check in self.checks)

    def counts(self) -> dict[CaseStatus, int]:
        """How many of its cases did not pass, by why (most frequent first; ties in ``FAILURES``' order)."""
        found = dict.fromkeys(FAILURES, 0)
        for check in self.checks:
            for case in check.cases:
                if not case.passed:  # so its ``why`` is not None
                    found[cast(CaseStatus, case.why)] += 1
        return dict(sorted(((why, n) for why, n in found.items() if n), key=lambda item: -item[1]))

    @property
    def state(self) -> FunctionState:
        if any(check.note for check in self.checks):
            return FunctionState.NO_CREDIT if self.cases else FunctionState.NOT_GRADED
        if all(check.full for check in self.checks):
            return FunctionState.FULL
        folded: dict[FunctionState, int] = {}
        for why, count in self.counts().items():
            folded[_STATE_OF[why]] = folded.get(_STATE_OF[why], 0) + count
        if not folded:
            return FunctionState.NOT_GRADED
        order = list(FunctionState)
        return min(folded, key=lambda state: (-folded[state], order.index(state)))


def functions(checks: Iterable[CheckResult]) -> list[FunctionResult]:
    """The functions of ``checks``, in the order their first check comes."""
    grouped: dict[str, list[CheckResult]] = {}
    for check in checks:
        grouped.setdefault(check.function, []).append(check)
    return [FunctionResult(name, mine[0].question, tuple(mine)) for name, mine in grouped.items()]


@dataclass(frozen=True)
class Student:
    name: str = ""
    email: str = ""
    sid: str = ""
    # a group member's own lateness, where it differs from another member's (``standing.stamp``;
    # None: the submission's ``late`` is theirs)
    late: Late | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Adjustment:
    """An instructor's override applied to one check (``grading/course/overrides.py``): the score
    before and after, why and who."""

    check: str
    before: float
    after: float
    reason: str
    who: str

    def words(self) -> str:
        """The adjustment as the feedback says it."""
        return f"{self.check}: {points(self.before)} -> {points(self.after)}, adjusted by {self.who}: {self.reason}"


@dataclass(frozen=True)
class SubmissionResult:
    submission: str  # its id: folder or zip name
    status: Status
    checks: tuple[CheckResult, ...] = ()
    students: tuple[Student, ...] = ()
    problems: tuple[str, ...] = ()  # for the student: files missing, imports failing...
    flags: tuple[Flag, ...] = ()  # Flag: for the instructor (library use, crashes, timeouts, tampering)
    output: str = ""  # what the submission printed (capped)
    instructor_log: str = ""  # grader-side details, never shown to students
    execution_time: float = 0.0
    random_seed: str = ""  # what its random cases were drawn with (a regrade of the same files reuses it)
    hidden_output: str = ""  # printed after a secret call's inputs reached it: instructors only
    rubric_digest: str = ""
    reference_digest: str = ""
    grader_digest: str = ""  # the grading plan's key: grader code, rubric, reference, data
    isolation: str = ""
    files: dict[str, str] = field(default_factory=dict)  # graded file -> sha256 of its content
    submitted: str = ""  # when it was submitted, ISO 8601 ("" unknown)
    submitted_from: str = ""  # where that time comes from (``intake.METADATA_TIME``, ``FILE_TIME``)
    late: Late | None = None  # how late against the class's deadline (None: no due date)
    adjustments: tuple[Adjustment, ...] = ()  # the overrides applied to its checks (``course/overrides.py``)

    @property
    def score(self) -> float:
        return round(sum(check.score for check in self.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(check.max_score for check in self.checks), 4)

    @property
    def ungradable(self) -> bool:
        """Nothing was graded because of the submission's own files (none found, an unreadable
        zip), not because the grader failed or ran out of time."""
        return self.status == Status.ERROR and not any(
            flag.kind in (FlagKind.GRADER, FlagKind.LIMIT) for flag in self.flags
        )

    @property
    def final(self) -> bool:
        """May a later run keep this result? Not when the grader failed on it or was disturbed
        while grading it (a process outside the sandbox ended a call twice): it is graded again."""
        return not any(flag.kind == FlagKind.GRADER for flag in self.flags)

    def student_view(self) -> SubmissionResult:
        """The result as its student may see it: every student renderer reads only this."""
        return replace(
            self,
            instructor_log="",
            hidden_output="",
            random_seed="",
            execution_time=0.0,  # how long it took could carry hidden inputs too
            flags=tuple(flag for flag in self.flags if flag.kind != FlagKind.ANSWERS),
            checks=tuple(
                replace(check, cases=tuple(case.for_student() for case in check.cases)) for check in self.checks
            ),
        )

    def unfinished(self) -> list[str]:
        """The functions left not implemented (stubs left, functions deleted): a partly done submission."""
        return [item.function for item in functions(self.checks) if item.state == FunctionState.NOT_IMPLEMENTED]

    def visible_by_question(self) -> list[tuple[str, list[CheckResult], float, float]]:
        """``(question, its checks students may see, points earned, points possible)`` in order."""
        questions: dict[str, list[CheckResult]] = {}
        for check in self.checks:
            questions.setdefault(check.question, []).append(check)
        return [
            (question, shown, sum(c.score for c in shown), sum(c.max_score for c in shown))
            for question, checks in questions.items()
            for shown in [[check for check in checks if check.visibility != "hidden"]]
        ]

    def question_scores(self) -> dict[str, float]:
        scores: dict[str, float] = {}
        for check in self.checks:
            scores[check.question] = round(scores.get(check.question, 0.0) + check.score, 4)
        return scores

    def to_dict(self) -> dict[str, Any]:
        """Plain data (as ``dataclasses.asdict``, without its deep copies: thousands of cases)."""
        skip = ("checks", "students", "flags", "late", "adjustments")
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        if self.adjustments:  # left out when none: a result without overrides is stored as before
            data["adjustments"] = [_shallow(item) for item in self.adjustments]
        data["late"] = _shallow(self.late) if self.late is not None else None
        data["students"] = [
            {**_shallow(student, skip=("late",)), **({"late": _shallow(student.late)} if student.late else {})}
            for student in self.students
        ]
        data["flags"] = [_shallow(flag) for flag in self.flags]
        data["checks"] = [
            {
                **_shallow(check, skip=("cases", "diagnoses", "counterexample")),
                "diagnoses": [_shallow(item) for item in check.diagnoses],
                **({"counterexample": _shallow(check.counterexample)} if check.counterexample else {}),
                "cases": [_shallow(case) for case in check.cases],
            }
            for check in self.checks
        ]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubmissionResult:  # ``data``: JSON as read from grade.json
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["status"] = Status(data["status"])
        values["checks"] = tuple(
            CheckResult(
                **{
                    **check,
                    "kind": CheckKind(check["kind"]),
                    "cases": tuple(
                        CaseResult(
                            **{
                                **case,
                                "status": CaseStatus(case["status"]),
                                "traceback": tuple(case["traceback"]),
                                "mro": tuple(case.get("mro", ())),
                                "groups": tuple(case.get("groups", ())),
                            }
                        )
                        for case in check["cases"]
                    ),
                    "diagnoses": tuple(
                        Diagnosis(**{**item, "kind": DiagnosisKind(item.get("kind", "misconception"))})
                        for item in check.get("diagnoses", ())
                    ),
                    "counterexample": Counterexample(**check["counterexample"])
                    if check.get("counterexample")
                    else None,
                }
            )
            for check in data.get("checks", ())
        )
        values["students"] = tuple(
            Student(**{**student, "late": Late(**student["late"]) if student.get("late") else None})
            for student in data.get("students", ())
        )
        values["flags"] = tuple(Flag(FlagKind(flag["kind"]), flag["text"]) for flag in data.get("flags", ()))
        values["problems"] = tuple(data.get("problems", ()))
        values["late"] = Late(**data["late"]) if data.get("late") else None
        values["adjustments"] = tuple(Adjustment(**item) for item in data.get("adjustments", ()))
        return cls(**values)

    @classmethod
    def failed(
        cls,
        submission: str,
        problems: tuple[str, ...],
        flags: tuple[Flag, ...] = (),
        checks: tuple[CheckResult, ...] = (),
        **more: Any,
    ) -> SubmissionResult:
        """The one way to build a result when nothing could be graded (the grader's own failure
        included): every check with no points, the problems for the student, the flags for the
        instructor."""
        return cls(
            submission=submission,
            status=Status.ERROR,
            checks=checks,
            problems=tuple(problems),
            flags=tuple(flags),
            **more,
        )


def _shallow(item: DataclassInstance, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {f.name: getattr(item, f.name) for f in fields(item) if f.name not in skip}
