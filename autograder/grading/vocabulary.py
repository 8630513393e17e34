"""The vocabulary of the result model: statuses, what happened to a case, flags, diagnoses, and
how points are printed (``results`` builds on it; renderers read it through ``results``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.strenum import StrEnum


class Status(StrEnum):
    """A submission's status: graded (whatever its score), or nothing could be graded."""

    GRADED = "graded"
    ERROR = "error"


class CaseStatus(StrEnum):
    """What happened to one case's call: the one vocabulary of a case. The judge's verdict is one of
    these (``CaseResult.status``, stored in grade.json), and so is why a case did not pass, as
    feedback and the class report count it (``CaseResult.why``). The sandbox's ``OutcomeStatus``
    becomes one of these in one place, ``judge.verdict``."""

    PASS = "pass"
    FAIL = "fail"  # a wrong answer (or a property of the file that does not hold, or the wrong error)
    ERROR = "error"  # the call raised where an answer was due
    TIMEOUT = "timeout"
    CRASH = "crash"
    NOT_RUN = "not-run"  # skipped after crashes, or a time budget ran out first
    NOT_IMPORTED = "not-imported"  # not run: its graded file did not import
    # never a verdict: why a FAIL or an ERROR that raised NotImplementedError did not pass (a stub
    # left, or no such function; not a failure of its own even where a ValueError is due)
    NOT_IMPLEMENTED = "not-implemented"

    @property
    def words(self) -> str:
        """The case's verdict as feedback says it."""
        return {
            "pass": "passed",
            "fail": "wrong",
            "error": "raised an error",
            "timeout": "timed out",
            "crash": "crashed",
            "not-run": "not run",
            "not-imported": "not run: its file did not import",
            "not-implemented": "not implemented",
        }[self.value]

    @property
    def counted(self) -> str:
        """Why cases did not pass as a function's summary counts them ("3 wrong, 1 not implemented"):
        a timeout is counted as a crash (``CaseResult.why``)."""
        return {"crash": "crashed or timed out", "not-imported": "file did not import"}.get(self.value, self.words)

    @property
    def judged(self) -> bool:
        """Does it tell something of the code's reasoning (the call returned or raised), not only
        what became of its process (a timeout, a crash, not run)?"""
        return self not in (CaseStatus.TIMEOUT, CaseStatus.CRASH, CaseStatus.NOT_RUN, CaseStatus.NOT_IMPORTED)


#: Why a case did not pass (``CaseResult.why``), in the order ties are listed (a timeout counts as a crash).
FAILURES = (
    CaseStatus.FAIL,
    CaseStatus.NOT_IMPLEMENTED,
    CaseStatus.ERROR,
    CaseStatus.CRASH,
    CaseStatus.NOT_RUN,
    CaseStatus.NOT_IMPORTED,
)

#: The exceptions that say a function is not written yet: the stub's own, and the grader's for a
#: function the file does not define (``sandbox/child/harness.py``).
NOT_IMPLEMENTED_ERRORS = ("NotImplementedError",)


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


#: What each flag's prefix (``kind: text`` in grades.csv and the class report) tells the instructor:
#: the one list docs/CLASS_REPORT.md's table is made from (``tools/gendocs.py``).
FLAG_MEANINGS: dict[FlagKind, str] = {
    FlagKind.LIBRARY: "a graded file imported, or tried to import, an evaluation library the lab gives no credit "
    "for computing with (`EVALUATION_LIBRARIES`, e.g. `ir_measures`)",
    FlagKind.IMPORT: "a graded file imported, or tried to import, a package `allowed_imports` does not allow",
    FlagKind.ANSWERS: "a graded file may hold answers instead of computing them, with the evidence and its lines "
    "(below): a reason to open the file, not a verdict; no score changes",
    FlagKind.CRASH: "calls that killed their process (the function and how many calls)",
    FlagKind.TIMEOUT: "calls that ran out of `limits.call_seconds` (the function and how many calls)",
    FlagKind.LIMIT: "the submission ran out of its own time (`limits.submission_seconds`, or the platform's "
    "`limits.overall_seconds`): the calls left were not run",
    FlagKind.OUTPUT: "the code printed more than `limits.output_kb` is kept of: the rest was dropped",
    FlagKind.FILES: "something in the submission's files was ignored (a file not graded, a misnamed or repeated "
    "one): what and why",
    FlagKind.GRADER: "the grader itself failed on this submission, not the student's code: its log is in the "
    "instructor's feedback; grade it again",
    FlagKind.UNIMPORTED: "a graded file raised an exception when imported: its functions got nothing",
    FlagKind.ATTEMPTS: "a submission over `attempts:`, the attempt limits (the class step of a local batch)",
}


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    text: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.text}"


class DiagnosisKind(StrEnum):
    """How a diagnosis was found."""

    MISCONCEPTION = "misconception"  # the answers match a known wrong variant of the function
    CONCEPT = "concept"  # the failing cases are exactly those where one of the notes' concepts decides the answer
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

    @classmethod
    def of_misconception(cls, item: Any, function: str) -> Diagnosis:
        """A catalogued misconception (its id, title, explanation and notes) named for ``function``."""
        return cls(id=item.id, function=function, title=item.title, explanation=item.explanation, notes=item.notes)


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


def shown_error(raised: str, mro: tuple[str, ...] = ()) -> str:
    """The exception's class as a hidden case's feedback names it (``SHOWN_ERRORS``)."""
    if not raised:
        return ""
    return next((name for name in (raised, *mro) if name in SHOWN_ERRORS), "an exception")


#: What a hidden run-file case may add to "wrong" (``CaseResult.told``): the writer left no file
#: the grader could read as a run, or a property of the file's TREC format does not hold.
NO_RUN_FILE = "wrote no readable run file"
WRONG_FORMAT = "wrong file format"
WRONG_ANSWER = "wrong answer"

#: Everything a hidden case that did not pass may tell its student beside its label (``hidden_state``):
#: a fixed vocabulary, so a submission moves at most log2(len(HIDDEN_STATES) + 1) bits per hidden
#: case and grading (the one is "passed"), whatever its answers, files, messages or crashes.
HIDDEN_STATES = (
    WRONG_ANSWER,
    WRONG_FORMAT,
    NO_RUN_FILE,
    *(f"raised {name}" for name in SHOWN_ERRORS if name not in NOT_IMPLEMENTED_ERRORS),
    "raised an exception",
    CaseStatus.NOT_IMPLEMENTED.words,
    CaseStatus.TIMEOUT.words,
    CaseStatus.CRASH.words,
    CaseStatus.NOT_RUN.words,
    CaseStatus.NOT_IMPORTED.words,
)


def hidden_state(status: CaseStatus, raised: str = "", mro: tuple[str, ...] = (), told: str = "") -> str:
    """What a hidden case tells its student of how it went: "" when it passed, else one of
    ``HIDDEN_STATES``, chosen by its status, the built-in class of what it raised (``shown_error``)
    and ``told`` when that is a word of the vocabulary (any other text is never shown)."""
    if status == CaseStatus.PASS:
        return ""
    if status not in (CaseStatus.FAIL, CaseStatus.ERROR):
        return status.words
    shown = shown_error(raised, mro)
    if shown in NOT_IMPLEMENTED_ERRORS:
        return CaseStatus.NOT_IMPLEMENTED.words
    if shown or status == CaseStatus.ERROR:
        return f"raised {shown or 'an exception'}"
    return told if told in (WRONG_FORMAT, NO_RUN_FILE) else WRONG_ANSWER


#: Marks a dict key that was not a string (JSON's keys are): ``{1: 2}`` is kept as ``{"\u20631": 2}``,
#: so that feedback shows ``{1: 2}``, not ``{'1': 2}``, the right answer's look (``key_text``).
NOT_A_STRING = "\u2063"


def key_text(key: object) -> str:
    """A plain dict key as feedback prints it: a string quoted, anything else (``NOT_A_STRING``) bare."""
    if isinstance(key, str) and key.startswith(NOT_A_STRING):
        return key[len(NOT_A_STRING) :]
    return repr(key)
