"""Students as the unit: who each submission is for, and which of a student's submissions counts.

**Who.** A student is known by their email and SID as Gradescope's ``submission_metadata.yml``
names them: two submissions naming the same email, or the same SID (compared without blanks or
case; an SID's leading zeros count), are the same student's. Without either, a student is known
by their name; a submission without metadata is its own student, known by its folder's name (a
folder named by the student's email or SID, as the LMS exports read it). A group submission is
each of its members'.

**Never merged by a shared identifier.** An SID the submissions give with two emails, or an email
they give with two SIDs (a typo, a self-enrolment: ``shared``), names nobody: people are joined by
their other identifiers only, and one named by shared identifiers alone is known by the pair (email,
SID) it gives. So each keeps their own row, and the LMS export never matches by a shared identifier.

**Which.** One policy for the class (``grading.yml``'s ``students.policy``, ``POLICIES``):

- ``latest`` (the default; Gradescope's "active" submission): the last one submitted;
- ``highest``: the highest grade after its late penalty (ties: the later one);
- ``latest_on_time``: the last one submitted by the student's due date (``deadlines``); when none
  was on time, the last one accepted (with its penalty).

**Whose due date.** A student's due date is their own extension (``extensions``), else the
class's. A group submission is late for each member by that member's own due date
(``students.group_extension``, ``GROUP_EXTENSIONS``: ``own``, the default), or the group is on
time if any member's covers it (``any``), or only if every member's does (``all``). Where members'
lateness differs, each keeps their own (``Student.late``, their row's grade), and the submission
itself (its feedback, a platform's one score) has the strictest member's.

Under every policy a submission that was not accepted (after the last accepted time) counts only
when the student has no accepted one. "Last" is by submission time; an unknown time sorts first,
and equal times by the submission's id in natural order (``submission_9`` before ``submission_10``).
A student's other submissions are *superseded*: listed under the student, out of the class's
statistics; a submission chosen for nobody is out of them too.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

from autograder.grading.course import deadlines
from autograder.grading.course.extensions import Extensions, key
from autograder.grading.intake import FILE_TIME
from autograder.grading.results import Student, SubmissionResult

POLICIES = {
    "latest": "the latest submission (Gradescope's active one)",
    "highest": "the highest grade after any late penalty",
    "latest_on_time": "the latest submission on time (else the latest accepted one)",
}
DEFAULT_POLICY = "latest"

GROUP_EXTENSIONS = {
    "own": "each member is late by their own due date (their own extension)",
    "any": "the group is on time if any member's extension covers it",
    "all": "the group is on time only if every member's due date covers it",
}
DEFAULT_GROUP_EXTENSION = "own"

_Node = tuple[str, str]  # what names a student: (kind, key), kind "email", "sid", "pair", "name" or "submission"
_Entry = tuple[Student, SubmissionResult]  # a student as one submission names them, and that submission
_Natural = tuple[int | str, ...]  # a text's digit runs as numbers, the rest as text


@dataclass(frozen=True)
class Rules:
    """The class-level rules: the policy, the deadline, the extensions and how a group's apply."""

    policy: str = DEFAULT_POLICY
    deadline: deadlines.Deadline | None = None
    extensions: Extensions | None = None
    group_extension: str = DEFAULT_GROUP_EXTENSION

    def own_due(self, student: Student) -> datetime.datetime | None:
        """``student``'s due date: their extension, else the class's; None without a deadline."""
        if self.deadline is None:
            return None
        extended = self.extensions.due(student.email, student.sid) if self.extensions is not None else None
        return max(self.deadline.due, extended) if extended else self.deadline.due

    def due(self, result: SubmissionResult, student: Student | None = None) -> datetime.datetime | None:
        """The due date of ``result`` for its member ``student`` (the module's rule): ``any``, the
        latest of its members'; ``all``, the earliest; ``own``, the student's own (without a student:
        the earliest, the strictest member's, which the submission itself has). None without a deadline."""
        people = result.students or (Student(email=result.submission, sid=result.submission),)
        dates = [date for person in people if (date := self.own_due(person))]
        if not dates:
            return None
        if self.group_extension == "any":
            return max(dates)
        if self.group_extension == "own" and student is not None:
            return self.own_due(student)
        return min(dates)


def stamp(result: SubmissionResult, rules: Rules) -> SubmissionResult:
    """``result`` with its lateness under ``rules``, and each member's own where they differ (the
    same object when nothing changes)."""
    late, members = None, result.students
    if rules.deadline is not None:
        submitted = datetime.datetime.fromisoformat(result.submitted) if result.submitted else None
        note = f"time from {result.submitted_from}" if result.submitted_from == FILE_TIME else ""
        late = deadlines.lateness(submitted, rules.deadline, rules.due(result), note)
        own = [deadlines.lateness(submitted, rules.deadline, rules.due(result, person), note) for person in members]
        differ = any(mine != own[0] for mine in own)
        members = tuple(replace(person, late=mine if differ else None) for person, mine in zip(members, own))
    members = tuple(replace(person, late=None) for person in members) if late is None else members
    if late == result.late and members == result.students:
        return result
    return replace(result, late=late, students=members)


def as_member(result: SubmissionResult, student: Student) -> SubmissionResult:
    """``result`` as its member ``student`` is graded: with their own lateness, where they have one."""
    return result if student.late is None or student.late == result.late else replace(result, late=student.late)


def grade(result: SubmissionResult) -> float:
    """The grade the submission earns: its score less its late penalty (``deadlines.grade``)."""
    return deadlines.grade(result.score, result.max_score, result.late)


def accepted(result: SubmissionResult) -> bool:
    return result.late is None or result.late.accepted


def _natural(text: str) -> _Natural:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def _when(result: SubmissionResult) -> tuple[int, float, _Natural]:
    """The order of submission: by time (unknown first), then by id in natural order."""
    if not result.submitted:
        return (0, 0.0, _natural(result.submission))
    return (1, datetime.datetime.fromisoformat(result.submitted).timestamp(), _natural(result.submission))


def choose(policy: str, results: Iterable[SubmissionResult]) -> SubmissionResult:
    """The submission that counts among one student's ``results`` under ``policy`` (the module's rule)."""
    ordered = sorted(results, key=_when)
    taken = [result for result in ordered if accepted(result)] or ordered
    if policy == "highest":
        return max(reversed(taken), key=grade)  # the first of equal grades from the latest: the later one
    if policy == "latest_on_time":
        on_time = [result for result in taken if result.late is None or result.late.seconds == 0]
        return (on_time or taken)[-1]
    return taken[-1]


def why(policy: str, chosen: SubmissionResult) -> str:
    """Why ``chosen`` counts, in words."""
    if not accepted(chosen):
        return "none was accepted: the latest"
    if policy == "latest_on_time" and chosen.late is not None and chosen.late.seconds:
        return "none was on time: the latest accepted"
    return {"latest": "the latest", "highest": "the highest", "latest_on_time": "the latest on time"}[policy]


@dataclass(frozen=True)
class Row:
    """One student: who, the submission that counts and the ones it supersedes (latest first)."""

    student: Student
    chosen: SubmissionResult
    superseded: tuple[SubmissionResult, ...] = ()
    reason: str = ""

    @property
    def grade(self) -> float:
        return grade(self.chosen)


@dataclass(frozen=True)
class Standing:
    """The class: a row per student, the submissions that count (each once) and the others."""

    policy: str
    rows: tuple[Row, ...]
    counted: tuple[SubmissionResult, ...]  # chosen for some student, in id order
    superseded: tuple[SubmissionResult, ...]  # chosen for nobody, in id order
    shared: frozenset[_Node] = frozenset()  # the identifiers given to several people (``shared``)


def _nodes(student: Student, submission: str, shared: Collection[_Node] = frozenset()) -> list[_Node]:
    given = [(kind, key(value)) for kind, value in (("email", student.email), ("sid", student.sid)) if key(value)]
    nodes = [node for node in given if node not in shared]
    if given and not nodes:  # named by shared identifiers alone: the pair tells them apart
        nodes = [("pair", f"{key(student.email)}|{key(student.sid)}")]
    if not nodes:
        nodes = [("name", key(student.name))] if key(student.name) else [("submission", submission)]
    return nodes


def _people(results: Iterable[SubmissionResult]) -> dict[_Node, list[_Entry]]:
    """Each student (a union of the emails, SIDs, names that name them, shared ones aside) ->
    [(Student, result)]."""
    results = tuple(results)
    apart = shared(results)
    parent: dict[_Node, _Node] = {}

    def root(node: _Node) -> _Node:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    named: list[tuple[_Node, Student, SubmissionResult]] = []
    for result in results:
        for student in result.students or (Student(),):
            nodes = _nodes(student, result.submission, apart)
            for node in nodes[1:]:
                parent[root(node)] = root(nodes[0])
            named.append((nodes[0], student, result))
    people: dict[_Node, list[_Entry]] = {}
    for node, student, result in named:
        people.setdefault(root(node), []).append((student, result))
    return people


def _identity(entries: list[_Entry], chosen: SubmissionResult) -> Student:
    """A student's fields, each from the latest submission that gives it."""
    ordered = sorted(entries, key=lambda entry: _when(entry[1]), reverse=True)
    name, email, sid = (
        next((getattr(student, field).strip() for student, _ in ordered if getattr(student, field).strip()), "")
        for field in ("name", "email", "sid")
    )
    if not (name or email or sid) and not chosen.students:
        return Student()  # known by the folder alone
    return Student(name, email, sid)


def _order(row: Row) -> tuple[str, str, str, str]:
    student = row.student
    return key(student.name), key(student.email), key(student.sid), row.chosen.submission


def people(results: Iterable[SubmissionResult]) -> dict[str, tuple[SubmissionResult, ...]]:
    """Each student (a key naming them) -> their submissions, each once, in the order given (a
    group's submission is each member's): who is who as ``build`` and ``owners`` say it."""
    return {
        ":".join(person): tuple({result.submission: result for _, result in entries}.values())
        for person, entries in _people(results).items()
    }


def owners(results: Iterable[SubmissionResult]) -> dict[str, str]:
    """Who made each submission: its first student's person (one person however many of their
    emails, SIDs and names the submissions give), else the submission itself. The one place that
    says which submissions are the same student's (the similarity never pairs them)."""
    found: dict[str, str] = {}
    for person, entries in _people(results).items():
        for _, result in entries:
            found.setdefault(result.submission, ":".join(person))
    return found


def build(results: Collection[SubmissionResult], policy: str = DEFAULT_POLICY) -> Standing:
    """The class's standing: every student's row (sorted by name, email, SID), which submissions
    count and which are superseded."""
    rows = []
    for entries in _people(results).values():
        mine = list({result.submission: as_member(result, student) for student, result in entries}.values())
        chosen = choose(policy, mine)
        others = tuple(sorted((r for r in mine if r is not chosen), key=_when, reverse=True))
        rows.append(Row(_identity(entries, chosen), chosen, others, why(policy, chosen)))
    rows.sort(key=_order)
    every = {result.submission: result for result in results}
    counted = {row.chosen.submission for row in rows}
    superseded = tuple(every[name] for name in sorted(every) if name not in counted)
    taken = tuple(every[name] for name in sorted(counted))
    return Standing(policy=policy, rows=tuple(rows), counted=taken, superseded=superseded, shared=shared(results))


def submitted_at(result: SubmissionResult) -> str:
    """When ``result`` was submitted as the class's tables show it, ISO 8601 (in the deadline's
    timezone when there is one): "" when unknown, or when it is only the files' modification time
    and no deadline makes it matter (a checkout's or a copy's time, not the student's)."""
    if result.late is not None and result.late.submitted:
        return result.late.submitted
    if not result.submitted or result.submitted_from == FILE_TIME:
        return ""
    return result.submitted


def label(result: SubmissionResult) -> str:
    """A submission as every "who" list names it: its students' names, then its id."""
    names = ", ".join(student.name.strip() for student in result.students if student.name.strip())
    return f"{names} ({result.submission})" if names else result.submission


def unused_extensions(rules: Rules, results: Iterable[SubmissionResult]) -> list[str]:
    """The extensions that name no student of ``results`` (a typo in the file, or a student who
    did not submit), each with its line."""
    if rules.extensions is None:
        return []
    known: set[_Node] = set()
    for result in results:
        for student in result.students or (Student(email=result.submission, sid=result.submission),):
            known |= {("email", key(student.email)), ("sid", key(student.sid))}
    lines = rules.extensions.lines or {}
    unused = [entry for entry in rules.extensions.dates if entry not in known]
    return [f"{value} (line {lines.get((kind, value), '?')})" for kind, value in unused]


def _given(results: Iterable[SubmissionResult]) -> dict[_Node, dict[str, set[str]]]:
    """Each SID -> the emails given with it, each email -> the SIDs given with it -> who gives it."""
    given: dict[_Node, dict[str, set[str]]] = {}
    for result in results:
        for student in result.students:
            for kind, other in (("sid", "email"), ("email", "sid")):
                mine, theirs = key(getattr(student, kind)), key(getattr(student, other))
                if mine and theirs:
                    who = f"{student.name.strip() or theirs} ({result.submission})"
                    given.setdefault((kind, mine), {}).setdefault(theirs, set()).add(who)
    return given


def shared(results: Iterable[SubmissionResult]) -> frozenset[_Node]:
    """The identifiers, as (``"email"`` or ``"sid"``, key), that the submissions give to more than
    one person: an SID given with two emails, an email given with two SIDs."""
    return frozenset(node for node, others in _given(results).items() if len(others) > 1)


def shared_identities(results: Iterable[SubmissionResult]) -> list[str]:
    """The SIDs the submissions give to more than one email, and the emails they give more than
    one SID (a typo, a self-enrolment): each with who gives it, in sorted order. ``build`` keeps
    such people apart (a row each), but each needs fixing at its source (the roster or the metadata)."""
    found = []
    for (kind, value), others in sorted(_given(results).items()):
        if len(others) > 1:
            other = "email" if kind == "sid" else "SID"
            named = "; ".join(f"{other} {theirs}: {', '.join(sorted(who))}" for theirs, who in sorted(others.items()))
            found.append(f"{'SID' if kind == 'sid' else 'email'} {value} is given to {len(others)} people ({named})")
    return found
