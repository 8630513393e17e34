"""The one result model: a submission's grade as an immutable object.

Renderers (``gradescope``, ``feedback``, ``report``, ``batch``'s CSV) read it; only they
write files. ``to_dict``/``from_dict`` store it (``grade.json``) so batches can resume and
reports can be rebuilt without grading again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields


def _shallow(item, skip: str = "") -> dict:
    return {f.name: getattr(item, f.name) for f in fields(item) if f.name != skip}


def points(value: float) -> str:
    """Points as every renderer prints them: at most 2 decimals, no trailing zeros (85.74, 100)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True)
class CaseResult:
    id: str
    description: str          # what was tested (shown to students also for hidden cases)
    public: bool              # the call, expected and actual may be shown to students
    status: str               # pass, fail, error, timeout, crash, not-run
    message: str = ""         # the verdict in words ("returned 0.6, expected 0.3")
    call: str = ""            # the call as text
    expected: object = None   # JSON-able; instructors only unless public
    actual: object = None     # JSON-able decoded value, when there was one
    traceback: tuple = ()     # the student's own traceback lines

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass(frozen=True)
class CheckResult:
    name: str                 # "<function>: <what it checks>"
    question: str
    function: str
    kind: str
    max_score: float
    score: float
    visibility: str
    cases: tuple = ()
    note: str = ""            # why the score is what it is beyond the cases (e.g. library use)
    diagnoses: tuple = ()     # named misconceptions the outputs match

    @property
    def passed(self) -> int:
        return sum(case.passed for case in self.cases)


@dataclass(frozen=True)
class Student:
    name: str = ""
    email: str = ""
    sid: str = ""


@dataclass(frozen=True)
class SubmissionResult:
    submission: str                 # its id: folder or zip name
    status: str                     # graded, or error (nothing could be graded)
    checks: tuple = ()
    students: tuple = ()
    problems: tuple = ()            # for the student: files missing, imports failing...
    flags: tuple = ()               # for the instructor: library use, crashes, timeouts, tampering
    output: str = ""                # what the submission printed (capped)
    instructor_log: str = ""        # grader-side details, never shown to students
    execution_time: float = 0.0
    rubric_digest: str = ""
    reference_digest: str = ""
    grader_digest: str = ""         # the grading plan's key: grader code, rubric, reference, data
    isolation: str = ""
    files: dict = field(default_factory=dict)  # graded file -> sha256 of its content

    @property
    def score(self) -> float:
        return round(sum(check.score for check in self.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(check.max_score for check in self.checks), 4)

    def visible_by_question(self) -> list[tuple[str, list, float, float]]:
        """``(question, its checks students may see, points earned, points possible)`` in order."""
        questions: dict[str, list] = {}
        for check in self.checks:
            questions.setdefault(check.question, []).append(check)
        return [(question, shown, sum(c.score for c in shown), sum(c.max_score for c in shown))
                for question, checks in questions.items()
                for shown in [[check for check in checks if check.visibility != "hidden"]]]

    def question_scores(self) -> dict[str, float]:
        scores: dict[str, float] = {}
        for check in self.checks:
            scores[check.question] = round(scores.get(check.question, 0.0) + check.score, 4)
        return scores

    def to_dict(self) -> dict:
        """Plain data (as ``dataclasses.asdict``, without its deep copies: thousands of cases)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("checks", "students")}
        data["students"] = [_shallow(student) for student in self.students]
        data["checks"] = [{**_shallow(check, skip="cases"), "cases": [_shallow(case) for case in check.cases]}
                          for check in self.checks]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "SubmissionResult":
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["checks"] = tuple(
            CheckResult(**{**check, "cases": tuple(CaseResult(**{**case, "traceback": tuple(case["traceback"])})
                                                   for case in check["cases"]),
                           "diagnoses": tuple(check.get("diagnoses", ()))})
            for check in data.get("checks", ()))
        values["students"] = tuple(Student(**student) for student in data.get("students", ()))
        for key in ("problems", "flags"):
            values[key] = tuple(data.get(key, ()))
        return cls(**values)
