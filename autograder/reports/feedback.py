"""What a student is told, built once as plain data; ``text`` renders it as Markdown (feedback.md,
and the text Gradescope and PrairieLearn show), ``feedback_html`` as feedback.html.

Three layers, in reading order:

1. the summary: the score, one banner per reason a file gets no credit (library use), the
   problems with the files, then per question its points and per function one line: its state
   (full marks, not implemented, not importable, crashed, raises an error, wrong, no credit) and,
   when the function has a detail of its own, a link to it;
2. per function whose cases are worth reading: its diagnoses (once), then per check that lost
   points its failing cases (the same error on many cases said once, with how many);
3. the checks that passed, folded away.

A function that is not implemented, not importable or gets no credit is one line of the summary,
never a traceback per case. Everything is read from the student view
(``SubmissionResult.student_view``): a hidden case shows what was tested, the parameters that
matter and how it failed, never the expected value nor the student's own; a public case (the notes' examples,
random cases, Cranfield) shows the call and both values, once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from autograder.grading import counting
from autograder.grading.course import deadlines
from autograder.grading.results import (
    HIDDEN_STATES,
    PROBE,
    CaseResult,
    CaseStatus,
    CheckResult,
    Counterexample,
    Diagnosis,
    FunctionResult,
    FunctionState,
    SubmissionResult,
    functions,
)
from autograder.grading.vocabulary import key_text
from autograder.labkit.case import RAISES
from autograder.labkit.kinds import CheckKind
from autograder.labkit.lab import Lab

SHOWN_FAILURES = 6  # failing cases shown per check; the others are counted (folded in HTML)
SHOWN_RANDOM = 3  # of a random check (their calls are long; a few reproduce the mistake)
CRANFIELD_QUERIES = 30  # query ids listed of a Cranfield check's differing values
CRANFIELD_SHOWN = 3  # differing values shown
# functions said in one line of the summary: their cases would repeat it
ONE_LINE = (FunctionState.NO_CREDIT, FunctionState.NOT_GRADED, FunctionState.NOT_IMPORTABLE)
# check kinds whose cases are best named by the call (the others by what they test)
BY_CALL = (CheckKind.EXAMPLES, CheckKind.EDGE, CheckKind.RANDOM)


def counted(number: int, noun: str) -> str:
    """``number`` and the noun, plural unless it is one: "1 case", "2 cases"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) >= 1e-4 or value == 0 else f"{value:.3e}"
    return repr(value)


def value_text(value: object) -> str:
    """A value as feedback prints it (numbers to 6 decimals, long dicts cut, run files a line each)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(value)
    if isinstance(value, dict) and set(value) == {RAISES}:  # a call that must raise
        return f"raises {value[RAISES]}"
    if isinstance(value, dict) and len(value) > 12:
        return "{" + ", ".join(f"{key_text(k)}: {value_text(v)}" for k, v in list(value.items())[:12]) + ", ...}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key_text(k)}: {value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and len(value) > 3 and " Q0 " in value[0]:
        return "\n" + "\n".join(value)
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return repr(value)


def _kind(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    return type(value).__name__ if isinstance(value, (list, dict)) else ""


@dataclass(frozen=True)
class ShownCase:
    """One failing case as the student sees it."""

    title: str  # the call (``code``) or what was tested
    code: bool
    hidden: bool
    expected: str  # "" when it is not shown
    actual: str  # the student's own value ("" when there is none)
    notes: tuple[str, ...]  # the verdict's words, when they add to the two values (may quote the student)
    traceback: tuple[str, ...]
    hint: str


def shown_case(case: CaseResult, kind: CheckKind) -> ShownCase:
    """A case of the student view, each value once."""
    expected = value_text(case.expected) if case.expected is not None else ""
    if case.actual is not None:
        actual = value_text(case.actual)
    elif case.raised and not case.message:
        actual = f"raised {case.raised}"  # a hidden case that raised the wrong error
    else:
        actual = ""
    both = expected and actual and _kind(case.expected) and _kind(case.expected) == _kind(case.actual)
    restated = case.status == CaseStatus.FAIL and both  # "returned x, expected y" says the values again
    notes = (case.message,) if case.message and not restated else ()
    if not case.public and case.call:  # only the instructor's full result has a hidden case's call
        notes = (f"call: {case.call}", *notes)
    if case.public and kind in BY_CALL and case.call:
        title, code = case.call, True
    else:
        title, code = ("" if case.public else "hidden case: ") + (case.description or case.id), False
    if not case.public and case.message in HIDDEN_STATES:  # the student's view: the label and its state
        title, notes = f"{title} ({case.message})", ()
    elif not case.public and not (actual or notes):
        title += f" ({case.status.words})"
    return ShownCase(
        title=title,
        code=code,
        hidden=not case.public,
        expected=expected,
        actual=actual,
        notes=notes,
        traceback=case.traceback,
        hint=case.hint,
    )


@dataclass(frozen=True)
class Repeated:
    """The same failure on several cases of a check."""

    count: int
    message: str
    traceback: tuple[str, ...]


@dataclass(frozen=True)
class CranfieldView:
    """A Cranfield check's values that differ from ir_measures'."""

    differ: int
    total: int
    queries: tuple[str, ...]  # the query ids with a differing value, in order
    first: tuple[ShownCase, ...]  # the first few
    points: tuple[tuple[float, float, str], ...]  # (ir_measures, yours, label) of every differing value, for a plot


@dataclass(frozen=True)
class CheckView:
    check: CheckResult
    repeated: tuple[Repeated, ...]
    shown: tuple[ShownCase, ...]  # the first SHOWN_FAILURES failing cases
    folded: tuple[ShownCase, ...]  # the other failing cases
    cranfield: CranfieldView | None

    @property
    def tally(self) -> str:
        if not self.check.cases:
            return "no cases were run"
        if len(self.check.cases) == 1:
            return f"its one case {'passed' if self.check.passed else 'failed'}"
        return f"{self.check.passed}/{len(self.check.cases)} cases passed"

    @property
    def counted(self) -> str:
        """How the check's points were counted (``grading.counting``'s rule, the one that scored);
        "" where something else set them (a note: e.g. no credit for library use)."""
        check = self.check
        scored = counting.count(check.cases, check.scoring).points(check.max_score)
        if check.note or abs(scored - check.score) > 1e-9:
            return ""
        return counting.explain(check.max_score, check.cases, check.scoring)


def _message(case: CaseResult) -> str:
    return case.message or (f"raised {case.raised}" if case.raised else case.status.words)


def check_view(check: CheckResult) -> CheckView:
    """A check that lost points: its repeated failures, its failing cases, its Cranfield values."""
    failing = [case for case in check.cases if not case.passed]
    counts: dict[tuple[str, tuple[str, ...]], int] = {}
    for case in failing:
        if case.status != CaseStatus.FAIL or case.raised:
            key = (_message(case), case.traceback)
            counts[key] = counts.get(key, 0) + 1
    repeated = tuple(Repeated(n, message, traceback) for (message, traceback), n in counts.items() if n > 1)
    grouped = {(item.message, item.traceback) for item in repeated}
    single = [case for case in failing if (_message(case), case.traceback) not in grouped]
    cranfield = None
    if check.kind == CheckKind.CRANFIELD and single:
        cranfield = _cranfield(check, single)
        single = []
    cases = [shown_case(case, check.kind) for case in single]
    shown = SHOWN_RANDOM if check.kind == CheckKind.RANDOM else SHOWN_FAILURES
    return CheckView(
        check=check, repeated=repeated, shown=tuple(cases[:shown]), folded=tuple(cases[shown:]), cranfield=cranfield
    )


def _cranfield(check: CheckResult, failing: list[CaseResult]) -> CranfieldView:
    queries = sorted({case.id.rsplit("-", 1)[-1] for case in failing}, key=lambda q: (len(q), q))
    points = tuple(
        (cast(float, case.expected), cast(float, case.actual), case.id.replace("cranfield-", ""))  # numbers (_kind)
        for case in failing
        if _kind(case.expected) == _kind(case.actual) == "number"
    )
    first = tuple(shown_case(case, check.kind) for case in failing[:CRANFIELD_SHOWN])
    return CranfieldView(
        differ=len(failing), total=len(check.cases), queries=tuple(queries), first=first, points=points
    )


@dataclass(frozen=True)
class ShownCounterexample:
    """A function's smallest counterexample as the student sees it (``grading/counterexamples.py``)."""

    intro: str  # what it is, how small, where it came from
    call: str
    expected: str
    actual: str  # the student's value, or what it raised
    stopped_early: str  # why a smaller one may exist ("" when the search ended)


#: What a counterexample's size counts (``Counterexample.unit``), for one and for more.
UNITS = {
    "": ("document or judgment", "documents and judgments"),
    "scenario": ("query or search result", "queries and search results"),
}


def shown_counterexample(check: CheckResult, found: Counterexample) -> ShownCounterexample:
    """The words and values a page shows of ``found``, shrunk from a failing case of ``check``."""
    one, many = UNITS.get(found.unit, UNITS[""])
    noun = one if found.size == 1 else many
    start = one if found.start_size == 1 else many
    origin = (
        "an input the grader made from the public ones (a public case varied, or a fresh random case)"
        if found.start.startswith(PROBE)
        else f"a failing case of {check.name}"
    )
    intro = (
        f"The smallest input found on which {check.function} is still wrong: {found.size} {noun}, "
        f"shrunk in {counted(found.calls, 'call')} from {origin} ({found.start_size} {start})"
    )
    stopped = (
        "The search stopped before it was done (its calls or its time ran out): a smaller one may exist."
        if found.stopped_early
        else ""
    )
    actual = found.raised or value_text(found.actual)  # no exception: it returned this, None too
    return ShownCounterexample(
        intro=intro, call=found.call, expected=value_text(found.expected), actual=actual, stopped_early=stopped
    )


@dataclass(frozen=True)
class FunctionView:
    result: FunctionResult
    headline: str  # its state in words, with how many cases
    quote: str  # the error it raised, in its own words (shown as code; "" when none)
    diagnoses: tuple[Diagnosis, ...]  # once each
    failing: tuple[CheckView, ...]  # the checks that lost points (empty: the summary line says it all)
    passed: tuple[CheckResult, ...]  # its checks with full marks
    counterexample: ShownCounterexample | None = None  # its smallest failing input, when one was found

    @property
    def name(self) -> str:
        return self.result.function

    @property
    def state(self) -> FunctionState:
        return self.result.state

    @property
    def detailed(self) -> bool:
        return bool(self.failing)


def _first(item: FunctionResult, why: CaseStatus) -> CaseResult | None:
    return next(
        (case for check in item.checks for case in check.cases if case.why == why and case.message),
        None,
    )


def headline(item: FunctionResult, lab: Lab) -> tuple[str, str]:
    """``(the function's state in words, the error it quotes)``; ``lab``: whose package and files a
    function not importable is said to live in."""
    state = item.state
    if state == FunctionState.FULL:
        return f"full marks ({counted(item.cases, 'case')})" if item.cases else "full marks", ""
    if state == FunctionState.NO_CREDIT:
        return "no credit (see above)", ""
    if state == FunctionState.NOT_GRADED:
        return "not graded (see above)", ""
    if state == FunctionState.NOT_IMPORTABLE:
        return f"not importable: {lab.package}/{lab.functions.get(item.function, '?')} did not import (see above)", ""
    counts = item.counts()
    failing = sum(counts.values())
    if failing == item.cases:
        on = "its only case" if failing == 1 else f"all {item.cases} cases"
    else:
        on = f"{failing} of {counted(item.cases, 'case')}"
    words = f"{state} on {on}"
    if state == FunctionState.CRASHED:  # the calls skipped after the crashes are not crashes of their own
        crashed, skipped = counts.get(CaseStatus.CRASH, 0), counts.get(CaseStatus.NOT_RUN, 0)
        words = f"crashed or hung on {counted(crashed, 'case')}"
        words += f"; {skipped} other{'s' if skipped != 1 else ''} not run" if skipped else ""
        others = [
            f"{n} {why.counted}" for why, n in counts.items() if why not in (CaseStatus.CRASH, CaseStatus.NOT_RUN)
        ]
        words += f" ({', '.join(others)})" if others else ""
    elif len(counts) > 1:
        words += " (" + ", ".join(f"{n} {why.counted}" for why, n in counts.items()) + ")"
    quoted = {FunctionState.NOT_IMPLEMENTED: CaseStatus.NOT_IMPLEMENTED, FunctionState.RAISED: CaseStatus.ERROR}.get(
        state
    )
    example = _first(item, quoted) if quoted else None
    return words, example.message if example else ""


def function_view(item: FunctionResult, lab: Lab) -> FunctionView:
    words, quote = headline(item, lab)
    diagnoses: dict[str, Diagnosis] = {}
    for check in item.checks:
        for diagnosis in check.diagnoses:
            diagnoses.setdefault(diagnosis.id, diagnosis)
    counts = item.counts()
    only_unwritten = set(counts) == {CaseStatus.NOT_IMPLEMENTED} and item.passed == 0
    one_line = item.state in ONE_LINE or item.state == FunctionState.FULL or only_unwritten
    failing = () if one_line else tuple(check_view(check) for check in item.checks if not check.full)
    passed = tuple(check for check in item.checks if check.full)
    shrunk = next((check for check in item.checks if check.counterexample and not check.full), None)
    return FunctionView(
        result=item,
        headline=words,
        quote=quote,
        diagnoses=tuple(diagnoses.values()),
        failing=failing,
        passed=passed,
        counterexample=shown_counterexample(shrunk, shrunk.counterexample)
        if shrunk is not None and shrunk.counterexample is not None and failing
        else None,
    )


@dataclass(frozen=True)
class QuestionView:
    question: str
    title: str
    earned: float
    possible: float
    functions: tuple[FunctionView, ...]


@dataclass(frozen=True)
class Feedback:
    submission: str
    who: str
    score: float
    max_score: float
    status: str
    banners: tuple[str, ...]  # why a file gets no credit, once each
    problems: tuple[str, ...]
    questions: tuple[QuestionView, ...]
    output: str
    lab_title: str = ""  # what the pages call the lab ("Lab 05")
    late: str = ""  # how late it was against the class's due date, in words ("" no due date)
    grade: float | None = None  # the score less the late penalty (None: no due date)
    adjustments: tuple[str, ...] = ()  # the instructor's overrides of the checks shown, in words

    @property
    def details(self) -> list[FunctionView]:
        """The functions with a detail of their own, in order."""
        return [view for question in self.questions for view in question.functions if view.detailed]

    def function(self, name: str) -> FunctionView | None:
        return next((view for question in self.questions for view in question.functions if view.name == name), None)


def at_once(check: CheckResult) -> bool:
    """Does every student see the check as soon as it is graded? (A platform's summary shows only
    those: it must not tell of a check the rubric shows after the due date.)"""
    return check.visibility == "visible"


def build(
    result: SubmissionResult,
    titles: Mapping[str, str] | None = None,
    shown: Callable[[CheckResult], bool] = lambda check: True,
    instructor: bool = False,
    *,
    lab: Lab,
) -> Feedback:
    """The feedback on ``result`` (its student view is taken here); ``shown``: the checks the
    student may see on this page (every renderer leaves out the rubric's hidden ones).
    ``instructor``: the same page from the full result, for the instructor's eyes only
    (``instructor_html``): hidden cases with their calls and expected values, hidden checks too.
    ``lab``: the lab graded, which the pages name."""
    view = result if instructor else result.student_view()
    titles = titles or {}
    visible = [check for check in view.checks if (instructor or check.visibility != "hidden") and shown(check)]
    by_question: dict[str, list[FunctionView]] = {}
    for item in functions(visible):
        by_question.setdefault(item.question, []).append(function_view(item, lab))
    questions = tuple(
        QuestionView(
            question=question,
            title=titles.get(question, ""),
            earned=sum(v.result.score for v in views),
            possible=sum(v.result.max_score for v in views),
            functions=tuple(views),
        )
        for question, views in by_question.items()
    )
    notes = (check.note for check in visible if check.note and check.cases)
    banners = tuple(dict.fromkeys(note[:1].upper() + note[1:] for note in notes))
    return Feedback(
        submission=view.submission,
        who=", ".join(student.name for student in view.students if student.name),
        score=view.score,
        max_score=view.max_score,
        status=str(view.status),
        banners=banners,
        problems=tuple(view.problems),
        questions=questions,
        output=view.output,
        lab_title=lab.title,
        late=deadlines.describe(view.late, view.max_score),
        grade=deadlines.grade(view.score, view.max_score, view.late) if view.late is not None else None,
        adjustments=tuple(item.words() for item in view.adjustments if item.check in {c.name for c in visible}),
    )
