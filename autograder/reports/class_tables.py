"""The class report's tables of what failed and who: per function the submissions in each state,
per case its passes with the failures counted apart by why (wrong answers apart from stubs,
crashes and files that did not import), and the diagnoses (named misconceptions, separating
conditions, answer shapes) with who shows each. Every count opens (``<details>``) on the list of
submissions behind it, each named by its students and its id (``standing.label``) and linked to
its feedback page at the function concerned. The class report passes the submissions that count
(one per student), so a superseded submission is in no list.

Everything here reads the one classification of the result model (``CaseResult.why``,
``FunctionResult.state``); nothing here decides why a case failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, cast

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
from autograder.reports import output_paths
from autograder.reports.html import esc, sortable, wide

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
    DiagnosisKind.CONDITION: "separating condition",
    DiagnosisKind.SHAPE: "answer shape",
}


def link(submission: str, function: str = "", count: int | None = None, text: str = "") -> str:
    """A submission's feedback page (at ``function``'s detail) named ``text`` (its id by default),
    with how many cases if given."""
    anchor = f"#{function}" if function else ""
    shown = esc(text or submission) + (f" ({count})" if count is not None else "")
    return f'<a href="{esc(output_paths.link(submission))}{esc(anchor)}">{shown}</a>'


def _labels(results: Iterable[SubmissionResult]) -> dict[str, str]:
    return {result.submission: label(result) for result in results}


def _by_label(names: Iterable[str], labels: Mapping[str, str]) -> list[str]:
    return sorted(names, key=lambda name: (str(labels.get(name, name)).casefold(), name))


def who(groups: dict[str, list[str]], summary: str) -> str:
    """``groups`` (a heading -> links) folded under ``summary``."""
    body = "".join(
        f"<p><strong>{esc(heading)}</strong>: {', '.join(links)}</p>" for heading, links in groups.items() if links
    )
    return f'<details class="who"><summary>{summary}</summary>{body}</details>' if body else ""


def graded(results: Iterable[SubmissionResult]) -> list[SubmissionResult]:
    return [result for result in results if result.status == Status.GRADED]


# ------------------------------------------------------------------ functions


def functions_table(results: Iterable[SubmissionResult]) -> str:
    """Per function, how many submissions are in each state, and who."""
    table: dict[str, dict[FunctionState, list[str]]] = {}
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
    if not table:
        return "<p>No graded submission.</p>"
    order = [state for state in FunctionState if any(state in states for states in table.values())]
    header = "".join(f'<th class="num">{esc(state)}</th>' for state in order)
    rows = []
    for function, states in table.items():
        cells = "".join(f'<td class="num">{len(states.get(state, [])) or ""}</td>' for state in order)
        groups = {str(state): states.get(state, []) for state in order}
        lost = sum(len(links) for links in groups.values())
        rows.append(
            f'<tr><td>{esc(function)}</td><td class="num">{full.get(function, 0)}</td>{cells}'
            f"<td>{who(groups, f'who ({lost})')}</td></tr>"
        )
    return wide(
        f'<table id="functions"><thead><tr><th>function</th><th class="num">full marks</th>{header}<th>who</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>",
        "Functions",
    )


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


def _who_failed(tally: Tally, aggregated: bool, labels: Mapping[str, str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for why, words in COLUMNS.items():
        counts = tally.why.get(why, {})
        found[words] = [
            link(name, tally.function, counts[name] if aggregated else None, labels.get(name, name))
            for name in _by_label(counts, labels)
        ]
    return found


def _case_row(tally: Tally, columns: list[CaseStatus], labels: Mapping[str, str]) -> str:
    cells = "".join(f'<td class="num">{tally.count(why) or ""}</td>' for why in columns)
    label = who(_who_failed(tally, tally.aggregated, labels), esc(tally.label))
    return (
        f'<tr><td class="num" data-value="{tally.rate:.4f}">{tally.rate:.0%}</td>'
        f'<td class="num">{tally.passed}/{tally.total}</td>{cells}<td>{esc(tally.check)}</td>'
        f'<td data-value="{esc(tally.label)}">{label}</td></tr>'
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
    header = "".join(sortable(esc(COLUMNS[why]), numeric=True) for why in columns)
    html = (
        '<p class="muted">The pass rate is over the answers given (passed, wrong or another error): a stub '
        "left, a crash or a file that did not import is counted in its own column. Click a case for who.</p>"
        + wide(
            f'<table class="sortable" id="cases"><thead><tr>{sortable("pass rate", numeric=True)}'
            f'<th class="num">passed</th>{header}{sortable("check")}{sortable("case")}'
            f"</tr></thead><tbody>{''.join(_case_row(tally, columns, labels) for tally in shown)}</tbody></table>",
            "Cases",
        )
        if shown
        else "<p>No case got a wrong answer, an error or a crash.</p>"
    )
    if folded:
        items = []
        for tally in folded:
            failed = ", ".join(f"{tally.count(why)} {words}" for why, words in COLUMNS.items() if tally.count(why))
            label = who(_who_failed(tally, tally.aggregated, labels), esc(tally.label)) if failed else esc(tally.label)
            items.append(
                f"<li>{esc(tally.check)}: {label}"
                + (f' <span class="muted">({failed})</span>' if failed else "")
                + "</li>"
            )
        summary = f"{len(folded)} cases every answer given passed"
        html += f'<details id="cases-passed"><summary>{summary}</summary><ul>{"".join(items)}</ul></details>'
    return html


# ------------------------------------------------------------------ diagnoses


class _Shown(TypedDict):
    """A diagnosis made in the class, and who shows it (their submissions)."""

    item: Diagnosis
    who: set[str]


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
    if not seen:
        return "<p>No diagnosis was made: no function lost points in a way its answers explain.</p>"
    order = list(DiagnosisKind)
    rows = []
    for (kind, function, _, _), entry in sorted(
        seen.items(), key=lambda kv: (order.index(kv[0][0]), -len(kv[1]["who"]), kv[0][1:])
    ):
        item, names = entry["item"], _by_label(entry["who"], labels)
        links = [link(name, function, text=labels[name]) for name in names]
        rows.append(
            f'<tr><td class="num">{len(names)}</td><td>{esc(function)}</td><td>{esc(KIND_WORDS[kind])}</td>'
            f'<td><strong>{esc(item.title)}</strong><br><span class="muted">{esc(item.notes)}</span></td>'
            f"<td>{who({'shown by': links}, f'who ({len(names)})')}</td></tr>"
        )
    return wide(
        '<table id="misconceptions"><thead><tr><th class="num">students</th><th>function</th><th>found as</th>'
        "<th>diagnosis</th><th>who</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>",
        "Misconceptions and other diagnoses",
    )
