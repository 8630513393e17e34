"""The class report's tables of what failed and who: per function the submissions in each state,
per case its passes with the failures counted apart by why (wrong answers apart from stubs,
crashes and files that did not import), and the diagnoses (named misconceptions, separating
conditions, answer shapes) with who shows each. Every count opens (``<details>``) on the list of
submissions behind it, each named by its students and its id (``standing.label``) and linked to
its feedback page at the function concerned. The class report passes the submissions that count
(one per student), so a superseded submission is in no list.

The tables' layout is ``templates/class_tables.html.j2``; this module computes their rows.
Everything here reads the one classification of the result model (``CaseResult.why``,
``FunctionResult.state``); nothing here decides why a case failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict, cast

from autograder.grading.course.standing import label
from autograder.grading.results import (
    CaseStatus,
    Diagnosis,
    DiagnosisKind,
    FunctionState,
    Status,
    SubmissionResult,
    functions,
)
from autograder.reports import html, output_paths

#: The failures a case's row counts apart, in the table's order, with their column headings.
COLUMNS = {
    CaseStatus.FAIL: "wrong",
    CaseStatus.ERROR: "raised an error",
    CaseStatus.NOT_IMPLEMENTED: "not implemented",
    CaseStatus.CRASH: "crashed or timed out",
    CaseStatus.NOT_RUN: "skipped",
    CaseStatus.NOT_IMPORTED: "file did not import",
}
KIND_WORDS = {
    DiagnosisKind.MISCONCEPTION: "known misconception",
    DiagnosisKind.CONCEPT: "the notes' concept",
    DiagnosisKind.CONDITION: "separating condition",
    DiagnosisKind.SHAPE: "answer shape",
}


class Link(NamedTuple):
    """A link to a submission's feedback page: its address and its text."""

    href: str
    text: str


def link(submission: str, function: str = "", count: int | None = None, text: str = "") -> Link:
    """A submission's feedback page (at ``function``'s detail) named ``text`` (its id by default),
    with how many cases if given."""
    anchor = f"#{function}" if function else ""
    return Link(
        output_paths.link(submission) + anchor, (text or submission) + (f" ({count})" if count is not None else "")
    )


def _macros() -> Any:
    return html.environment().get_template("class_tables.html.j2").module


def _labels(results: Iterable[SubmissionResult]) -> dict[str, str]:
    return {result.submission: label(result) for result in results}


def _by_label(names: Iterable[str], labels: Mapping[str, str]) -> list[str]:
    return sorted(names, key=lambda name: (str(labels.get(name, name)).casefold(), name))


def graded(results: Iterable[SubmissionResult]) -> list[SubmissionResult]:
    return [result for result in results if result.status == Status.GRADED]


# ------------------------------------------------------------------ functions


class FunctionRow(NamedTuple):
    """A function's row: how many submissions have full marks, how many are in each other state
    ("" for none) and who."""

    function: str
    full: int
    counts: list[int | str]
    groups: dict[str, list[Link]]
    lost: int


def functions_table(results: Iterable[SubmissionResult]) -> str:
    """Per function, how many submissions are in each state, and who."""
    table: dict[str, dict[FunctionState, list[Link]]] = {}
    full: dict[str, int] = {}
    ordered = sorted(graded(results), key=lambda result: (label(result).casefold(), result.submission))
    for result in ordered:
        for item in functions(result.checks):
            table.setdefault(item.function, {})
            if item.state == FunctionState.FULL:
                full[item.function] = full.get(item.function, 0) + 1
            else:
                shown = link(result.submission, item.function, text=label(result))
                table[item.function].setdefault(item.state, []).append(shown)
    order = [state for state in FunctionState if any(state in states for states in table.values())]
    rows = []
    for function, states in table.items():
        groups = {str(state): states.get(state, []) for state in order}
        rows.append(
            FunctionRow(
                function=function,
                full=full.get(function, 0),
                counts=[len(states.get(state, [])) or "" for state in order],
                groups=groups,
                lost=sum(len(links) for links in groups.values()),
            )
        )
    return str(_macros().functions_table([str(state) for state in order], rows))


# ------------------------------------------------------------------ cases


@dataclass
class Tally:
    """One case (or, for the aggregated kinds, one check's cases together) over the class."""

    check: str
    function: str
    label: str
    aggregated: bool = False  # a check's cases together (random, Cranfield): counts are cases, not submissions
    passed: int = 0
    total: int = 0
    why: dict[CaseStatus, dict[str, int]] = field(default_factory=dict)  # CaseResult.why -> {submission: cases}

    def count(self, why: CaseStatus) -> int:
        return sum(self.why.get(why, {}).values())

    @property
    def attempted(self) -> int:
        """Cases that got an answer of the student's own: passed, wrong, or another error."""
        return self.passed + self.count(CaseStatus.FAIL) + self.count(CaseStatus.ERROR)

    @property
    def rate(self) -> float:
        """The pass rate of the attempted cases (1 when none was attempted)."""
        return self.passed / self.attempted if self.attempted else 1.0

    @property
    def failed(self) -> int:
        return self.total - self.passed


def case_tallies(results: Iterable[SubmissionResult]) -> list[Tally]:
    """Every case of the graded submissions, worst first: the lowest pass rate among the answers
    given (a stub left or a file that did not import does not make a case look hard)."""
    tallies: dict[tuple[str, str], Tally] = {}  # (check, label) -> its tally
    for result in graded(results):
        for check in result.checks:
            for case in check.cases:
                aggregated = check.kind.aggregated
                label = f"{check.kind.label}, all together" if aggregated else case.description or case.id
                tally = tallies.setdefault(
                    (check.name, label),
                    Tally(check=check.name, function=check.function, label=label, aggregated=aggregated),
                )
                tally.total += 1
                if case.passed:
                    tally.passed += 1
                else:
                    mine = tally.why.setdefault(cast(CaseStatus, case.why), {})  # not passed: why is not None
                    mine[result.submission] = mine.get(result.submission, 0) + 1
    return sorted(tallies.values(), key=lambda t: (t.rate, -t.count(CaseStatus.FAIL), -t.failed, t.check, t.label))


def _who_failed(tally: Tally, aggregated: bool, labels: Mapping[str, str]) -> dict[str, list[Link]]:
    found: dict[str, list[Link]] = {}
    for why, words in COLUMNS.items():
        counts = tally.why.get(why, {})
        found[words] = [
            link(name, tally.function, counts[name] if aggregated else None, labels.get(name, name))
            for name in _by_label(counts, labels)
        ]
    return found


class CaseRow(NamedTuple):
    """A case's row: its pass rate, its failures by why ("" for none), who."""

    rate_value: str
    rate: str
    passed: int
    total: int
    counts: list[int | str]
    check: str
    label: str
    groups: dict[str, list[Link]]
    failed: str  # its failures in words (for a folded case), "" when none


def _case_row(tally: Tally, columns: Iterable[CaseStatus], labels: Mapping[str, str]) -> CaseRow:
    return CaseRow(
        rate_value=f"{tally.rate:.4f}",
        rate=f"{tally.rate:.0%}",
        passed=tally.passed,
        total=tally.total,
        counts=[tally.count(why) or "" for why in columns],
        check=tally.check,
        label=tally.label,
        groups=_who_failed(tally, tally.aggregated, labels),
        failed=", ".join(f"{tally.count(why)} {words}" for why, words in COLUMNS.items() if tally.count(why)),
    )


def _answered_wrong(tally: Tally) -> bool:
    return any(tally.count(why) for why in (CaseStatus.FAIL, CaseStatus.ERROR, CaseStatus.CRASH))


def cases_table(results: Sequence[SubmissionResult]) -> str:
    """The cases some submission answered wrong (or crashed on), worst first, each opening on who;
    the others (every answer given right: failures only from stubs, skipped calls and files that
    did not import) folded, with their counts."""
    tallies = case_tallies(results)
    labels = _labels(results)
    shown = [tally for tally in tallies if _answered_wrong(tally)]
    folded = [tally for tally in tallies if not _answered_wrong(tally)]
    columns = [why for why in COLUMNS if any(tally.count(why) for tally in shown)]
    return str(
        _macros().cases_table(
            [COLUMNS[why] for why in columns],
            [_case_row(tally, columns, labels) for tally in shown],
            [_case_row(tally, (), labels) for tally in folded],
        )
    )


# ------------------------------------------------------------------ diagnoses


class _Shown(TypedDict):
    """A diagnosis made in the class, and who shows it (their submissions)."""

    item: Diagnosis
    who: set[str]


class DiagnosisRow(NamedTuple):
    """A diagnosis made in the class: its function, how it was found, what it says, who shows it."""

    function: str
    kind: str
    title: str
    notes: str
    links: list[Link]


def diagnoses_table(results: Sequence[SubmissionResult]) -> str:
    """Every diagnosis made in the class (misconceptions first, then conditions and shapes), most
    frequent first, with who."""
    seen: dict[tuple[DiagnosisKind, str, str, str], _Shown] = {}  # (kind, function, id, title) -> who
    labels = _labels(results)
    for result in results:
        for check in result.checks:
            for item in check.diagnoses:
                key = (item.kind, item.function, item.id, item.title)
                entry = seen.setdefault(key, {"item": item, "who": set()})
                entry["who"].add(result.submission)
    order = list(DiagnosisKind)
    rows = [
        DiagnosisRow(
            function=function,
            kind=KIND_WORDS[kind],
            title=entry["item"].title,
            notes=entry["item"].notes,
            links=[link(name, function, text=labels[name]) for name in _by_label(entry["who"], labels)],
        )
        for (kind, function, _, _), entry in sorted(
            seen.items(), key=lambda kv: (order.index(kv[0][0]), -len(kv[1]["who"]), kv[0][1:])
        )
    ]
    return str(_macros().diagnoses_table(rows))
