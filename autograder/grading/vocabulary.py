"""The vocabulary of the result model: statuses, why a case did not pass, flags, diagnoses, and
how points are printed (``results`` builds on it; renderers read it through ``results``)."""

from __future__ import annotations

from dataclasses import dataclass

from autograder.strenum import StrEnum


class Status(StrEnum):
    """A submission's status: graded (whatever its score), or nothing could be graded."""

    GRADED = "graded"
    ERROR = "error"


class CaseStatus(StrEnum):
    """The verdict on one case."""

    PASS = "pass"
    FAIL = "fail"  # a wrong answer (or a property that does not hold)
    ERROR = "error"  # the call raised
    TIMEOUT = "timeout"
    CRASH = "crash"
    NOT_RUN = "not-run"  # an earlier crash or a budget ran out first
    NOT_IMPORTED = "not-imported"  # not run: its graded file did not import

    @property
    def words(self) -> str:
        """The verdict as feedback says it."""
        return {
            "pass": "passed",
            "fail": "wrong",
            "error": "raised an error",
            "timeout": "timed out",
            "crash": "crashed",
            "not-run": "not run",
            "not-imported": "not run: its file did not import",
        }[self.value]


#: The exceptions that say a function is not written yet: the stub's own, and the grader's for a
#: function the file does not define (``sandbox/child/harness.py``).
NOT_IMPLEMENTED_ERRORS = ("NotImplementedError",)


class Why(StrEnum):
    """Why a case did not pass: the one classification feedback and the class report read
    (``CaseResult.why``). A case that expects a ValueError but meets the stub's
    NotImplementedError is not implemented, not a failure of its own."""

    WRONG = "wrong"  # a wrong answer (or a property of the file that does not hold, or the wrong error)
    NOT_IMPLEMENTED = "not implemented"  # NotImplementedError: a stub left, or no such function
    RAISED = "raised an error"  # any other exception where an answer was due
    CRASHED = "crashed or timed out"
    NOT_RUN = "not run"  # skipped after crashes, or a time budget ran out first
    NOT_IMPORTED = "file did not import"


_WHY = {
    CaseStatus.FAIL: Why.WRONG,
    CaseStatus.ERROR: Why.RAISED,
    CaseStatus.TIMEOUT: Why.CRASHED,
    CaseStatus.CRASH: Why.CRASHED,
    CaseStatus.NOT_RUN: Why.NOT_RUN,
    CaseStatus.NOT_IMPORTED: Why.NOT_IMPORTED,
}


class FlagKind(StrEnum):
    """What an instructor is told about: each flag is one of these."""

    LIBRARY = "library"  # an evaluation library imported (or tried)
    IMPORT = "import"  # a package the rubric does not allow imported (or tried)
    ANSWERS = "answers"  # a graded file may hold answers instead of computing them (answer_tables)
    CRASH = "crash"  # calls that killed their process
    TIMEOUT = "timeout"  # calls that ran out of time
    LIMIT = "limit"  # the submission's own time limit
    OUTPUT = "output"  # printed more than is kept
    FILES = "files"  # something in the submission's files was ignored
    GRADER = "grader"  # the grader itself failed on this submission
    UNIMPORTED = "unimported"  # a graded file raised an exception when imported (its functions got nothing)
    ATTEMPTS = "attempts"  # over grading.yml's attempt limits (a local batch's class-level step says so)


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    text: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.text}"


class DiagnosisKind(StrEnum):
    """How a diagnosis was found."""

    MISCONCEPTION = "misconception"  # the answers match a known wrong variant of the function
    CONDITION = "condition"  # a feature of the inputs separates the failing cases from the passing ones
    SHAPE = "shape"  # the wrong answers have a telling shape (None, rounded, off by one rank...)


@dataclass(frozen=True)
class Diagnosis:
    """Why a function loses points, as far as its answers tell."""

    id: str
    function: str
    title: str  # the mistake, in plain words
    explanation: str  # why it is wrong and what is right
    notes: str  # where the notes explain it
    kind: DiagnosisKind = DiagnosisKind.MISCONCEPTION

    def text(self) -> str:
        return f"Diagnosis: {self.title}. {self.explanation} See the notes: {self.notes}."


def points(value: float) -> str:
    """Points as every renderer prints them: at most 2 decimals, no trailing zeros (85.74, 100)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


#: The exceptions a hidden case's feedback may name: what the contract's cases are about, and the
#: usual mistakes. Any other class is named by the nearest of these it derives from, or as "an
#: exception": a submission cannot pick among many names to say something about a hidden input.
SHOWN_ERRORS = (
    "ValueError",
    "TypeError",
    "NotImplementedError",
    "KeyError",
    "IndexError",
    "ZeroDivisionError",
    "AttributeError",
    "RecursionError",
    "MemoryError",
)


def shown_error(raised: str, mro: tuple = ()) -> str:
    """The exception's class as a hidden case's feedback names it (``SHOWN_ERRORS``)."""
    if not raised:
        return ""
    return next((name for name in (raised, *mro) if name in SHOWN_ERRORS), "an exception")
