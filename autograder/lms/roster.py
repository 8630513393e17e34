"""Matching a graded batch to an LMS roster: the rules every LMS format shares.

A roster is the LMS's own gradebook export, read by one LMS module into a ``Gradebook``: its
people (each a row, with the emails and SIDs the LMS knows them by) and the grade columns an
import may fill. The batch's students come from its standing (``grading/course/standing.py``: one row
per student, the submission that counts under the batch's policy, its late penalty applied);
each student is matched to the one roster row holding their email or their SID (compared
without surrounding blanks, case-insensitively; a SID stays a string, so leading zeros count).
A student without metadata is tried by their submission's id (a folder named by the student's
email or SID).

Deliberate choices, each reported on stderr by ``match``:

- a group submission gives its grade to every member it names;
- a student with several submissions gets the grade of the one the policy chose (the note
  names the ones not taken), after its late penalty (noted too);
- a student matching two roster rows (their email one, their SID another) gets no grade;
- an SID or email the batch gives to several people (``standing.shared``) matches nobody: each
  such person is matched by their other identifier alone, else left out and listed; a roster row
  claimed by two people of the batch gets no grade (one person's grade never goes to another);
- a student no roster row matches is listed with the closest rows (``closest``), never graded;
- roster students without a submission get an empty cell, and are listed;
- a submission the grader itself failed on (flag ``grader``) gets an empty cell, not a 0.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from autograder.errors import InputError
from autograder.grading.course import deadlines, standing
from autograder.grading.results import FlagKind, Status, Student, SubmissionResult, points
from autograder.lms import closest
from autograder.lms.tables import Table
from autograder.reports import analysis_grades, untrusted


@dataclass(frozen=True)
class Column:
    """A grade column of the roster: its header as the LMS wrote it (what the import must carry)."""

    header: str
    title: str = ""  # the name without the LMS's decorations (id, points), what --column may give part of
    points: float | None = None  # points possible, where the export says


@dataclass(frozen=True)
class Person:
    """A student in the roster: a row of the export and what the LMS knows them by."""

    row: int  # index into ``Table.rows``
    name: str
    emails: tuple[str, ...] = ()
    sids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Gradebook:
    """An LMS's gradebook export, understood: who is in it and which columns can take grades."""

    table: Table
    people: tuple[Person, ...]
    columns: tuple[Column, ...]
    copied: tuple[int, ...]  # roster columns copied into the import, in order
    keys: tuple[int, ...]  # the columns the LMS matches an imported row by
    notes: tuple[str, ...] = ()  # for the instructor: what the roster holds that the import may trip on


@dataclass(frozen=True)
class Format:
    """One LMS: how its export is read and its import written (a value of the registry)."""

    name: str
    export_hint: str  # where the instructor downloads the roster
    read: Callable[[Table], Gradebook]
    render: Callable[[Gradebook, Column, dict[int, str], str], str]  # (gradebook, column, row -> cell, out suffix)
    new_columns: bool = False  # an import may name a column the roster lacks (mapped by hand at import)


@dataclass(frozen=True)
class Matching:
    cells: dict[int, str]  # roster row -> the grade written (absent: empty cell)
    messages: tuple[str, ...]
    graded: int  # roster students given a grade
    unmatched: int  # the batch's students no roster row matches


def norm(text: str) -> str:
    return text.strip().casefold()


def require(table: Table, lms: Format, *names: str) -> int:
    """The position of a column the roster must have (the first of ``names`` present), or a
    ``ValueError`` that names it, says what was found and where the right file comes from."""
    position = table.index(*names)
    if position is None:
        wanted = " or ".join(repr(name) for name in names)
        raise InputError(
            f"{table.source} is not a {lms.name} gradebook export: it has no {wanted} column "
            f"(found: {table.describe()}). {lms.export_hint}"
        )
    return position


def pick(gradebook: Gradebook, lms: Format, wanted: str | None) -> tuple[Column, list[str]]:
    """The grade column to fill: ``wanted`` (its exact header or title, or a part of one title), or
    the roster's only grade column; with the notes to print."""
    columns, source = gradebook.columns, gradebook.table.source
    listing = "; ".join(repr(column.header) for column in columns) or "none"
    if wanted is None:
        if len(columns) == 1:
            return columns[0], [f"filling {columns[0].header!r}, the roster's only grade column"]
        if not columns:
            raise InputError(
                f"{source} has no {lms.name} grade column to fill: create the assignment in {lms.name}, "
                f"export the gradebook again{' (or name a new column with --column)' if lms.new_columns else ''}"
            )
        raise InputError(
            f"{source} has {len(columns)} grade columns: choose one with --column, e.g. "
            f"--column {shlex.quote(columns[0].header)} (a part of the name is enough). The columns: {listing}"
        )
    exact = [column for column in columns if norm(wanted) in (norm(column.header), norm(column.title))]
    partial = [column for column in columns if norm(wanted) in norm(column.title or column.header)]
    if exact or len(partial) == 1:
        return (exact or partial)[0], []
    if len(partial) > 1:
        raise InputError(
            f"--column {wanted!r} matches {len(partial)} columns of {source}: "
            f"{'; '.join(repr(c.header) for c in partial)}; give more of the name"
        )
    if lms.new_columns:
        return Column(wanted, wanted), [
            f"{wanted!r} is not a column of {source}: map it to a grade item when importing"
        ]
    raise InputError(
        f"no grade column {wanted!r} in {source} (its grade columns: {listing}): {lms.name} routes grades by the "
        f"column's id, which only its export carries; create the assignment, export the gradebook again and "
        f"pass its column"
    )


def _who(student: Student) -> str:
    parts = [student.name or "(no name)"]
    parts += [f"<{student.email}>"] if student.email else []
    parts += [f"SID {student.sid}"] if student.sid else []
    return " ".join(parts)


def _identity(row: standing.Row) -> tuple[Student, str]:
    if any((row.student.name, row.student.email, row.student.sid)):
        return row.student, _who(row.student)
    submission = row.chosen.submission
    fallback = Student(email=submission, sid=submission)
    return fallback, f"names no student (no submission_metadata.yml entry) and its id {submission!r}"


def _names(people: dict[int, Person], rows: set[int]) -> str:
    return ", ".join(f"row {row + 2} ({people[row].name})" for row in sorted(rows))


def _problems(problems: tuple[str, ...]) -> str:
    """A submission's problems as a message quotes them: the first whole, and how many more."""
    if not problems:
        return "no files"
    first = problems[0].splitlines()[0]
    return first + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")


def match(
    gradebook: Gradebook, found: standing.Standing, analysis: Mapping[str, analysis_grades.Entry] | None = None
) -> Matching:
    """Which roster row gets which grade, with every choice and leftover said in words; with ``analysis``
    (the grading sheet's entries by submission) the written analysis's points instead of the code's."""
    people = {person.row: person for person in gradebook.people}
    index = _index(gradebook.people)
    claims: dict[int, list[standing.Row]] = {}
    messages: list[str] = []
    unmatched = 0
    for row in found.rows:
        student, who = _identity(row)
        rows = _rows_of(student, index, found.shared)
        submission = row.chosen.submission
        if len(rows) == 1:
            claims.setdefault(rows.pop(), []).append(row)
        elif not rows and _apart(student, found.shared):
            unmatched += 1
            messages.append(
                f"left out: {submission}: {who}: {_apart(student, found.shared)} the batch gives to several "
                "people, so it matches no roster row, and no roster row has their other identifier: no grade "
                "given; fix the roster or the submission's metadata"
            )
        elif not rows:
            unmatched += 1
            messages.append(
                f"not in the roster: {submission}: {who}: no roster row has this email or SID"
                + closest.hint(student, gradebook.people)
            )
        else:
            messages.append(
                f"ambiguous: {submission}: {who} matches {_names(people, rows)}: no grade given; "
                "fix the roster or the submission's metadata"
            )
    cells: dict[int, str] = {}
    for number, taken in sorted(claims.items()):
        if len(taken) > 1 and any(_apart(row.student, found.shared) for row in taken):
            messages.append(
                f"ambiguous: {people[number].name} (row {number + 2}) is matched by "
                f"{', '.join(f'{row.chosen.submission} ({_who(row.student)})' for row in taken)}, people the "
                "batch keeps apart (they share an identifier): no grade given; fix the roster or the "
                "submissions' metadata"
            )
            continue
        cell = _graded(f"{people[number].name} (row {number + 2})", taken, found.policy, messages, analysis)
        if cell is not None:
            cells[number] = cell
    messages += _missing(gradebook, claims)
    return Matching(cells, tuple(messages), len(cells), unmatched)


def _index(people: tuple[Person, ...]) -> dict[tuple[str, str], set[int]]:
    """The roster rows by what they know a student by: (``email`` or ``sid``, normalised value) -> rows."""
    index: dict[tuple[str, str], set[int]] = {}
    for person in people:
        for kind, values in (("email", person.emails), ("sid", person.sids)):
            for value in values:
                if norm(value):
                    index.setdefault((kind, norm(value)), set()).add(person.row)
    return index


def _rows_of(
    student: Student, index: dict[tuple[str, str], set[int]], shared: Collection[tuple[str, str]] = ()
) -> set[int]:
    """The roster rows holding the student's email or SID, an identifier in ``shared`` aside."""
    rows = set()
    for kind, value in (("email", student.email), ("sid", student.sid)):
        if norm(value) and (kind, norm(value)) not in shared:
            rows |= index.get((kind, norm(value)), set())
    return rows


def _apart(student: Student, shared: Collection[tuple[str, str]]) -> str:
    """The student's identifiers that the batch gives to several people, in words ("" if none)."""
    named = [
        f"{label} {value.strip()}"
        for kind, label, value in (("email", "email", student.email), ("sid", "SID", student.sid))
        if norm(value) and (kind, norm(value)) in shared
    ]
    return (" and ".join(named) + (" are identifiers" if len(named) > 1 else " is an identifier")) if named else ""


def _graded(
    name: str,
    taken: list[standing.Row],
    policy: str,
    messages: list[str],
    analysis: Mapping[str, analysis_grades.Entry] | None = None,
) -> str | None:
    """The cell of a roster row the batch's rows ``taken`` claim: the grade of the submission the
    policy chose (None: the grader failed on it), or with ``analysis`` that submission's analysis
    points (None: the sheet has no row or no prose points for it), each choice said in ``messages``."""
    best = standing.choose(policy, [row.chosen for row in taken])
    row = next(row for row in taken if row.chosen is best)
    messages += _several(name, taken, best, policy)
    if analysis is not None:
        entry = analysis.get(best.submission)
        if entry is None or entry.prose_points is None:
            why = "has no row in the grading sheet" if entry is None else "has no prose_points yet in the grading sheet"
            messages.append(f"analysis not graded: {name}: {best.submission} {why}: left empty")
            return None
        return points(entry.total)
    if any(flag.kind == FlagKind.GRADER for flag in best.flags):
        messages.append(
            f"grader failure: {name}: {best.submission} was not graded "
            "(the grader failed on it): left empty; grade it again with --force"
        )
        return None
    if best.status == Status.ERROR:
        messages.append(
            f"not gradable: {name}: {best.submission} had nothing to grade ({_problems(best.problems)}): "
            "its 0 is exported"
        )
    if row.grade != best.score:
        messages.append(
            f"late: {name}: {best.submission}: {deadlines.brief(best.late)}: {points(best.score)} less the "
            f"penalty is {points(row.grade)}, exported"
        )
    return points(row.grade)


def _several(name: str, taken: list[standing.Row], best: SubmissionResult, policy: str) -> list[str]:
    """The note of a roster row claimed by several submissions: the one taken, why, and the others."""
    seen = {o.submission: o for item in taken for o in (item.chosen, *item.superseded) if o is not best}
    others = [seen[key] for key in sorted(seen)]
    if not others:
        return []
    listed = ", ".join(f"{other.submission} ({points(other.score)})" for other in others)
    return [
        f"several submissions: {name}: took {best.submission} ({points(best.score)}), "
        f"{standing.why(policy, best)} (grading.yml students.policy: {policy}); not {listed}"
    ]


def _missing(gradebook: Gradebook, claims: dict[int, list[standing.Row]]) -> list[str]:
    """The note of the roster students no submission claims (left empty), if any."""
    missing = [person for person in gradebook.people if person.row not in claims]
    if not missing:
        return []
    return [
        f"no submission: {len(missing)} roster student(s) left empty: "
        + ", ".join(f"{person.name} (row {person.row + 2})" for person in missing)
    ]


def key_notes(gradebook: Gradebook, cells: dict[int, str]) -> list[str]:
    """Rows the LMS may fail to match at import, so the instructor must look at them: a graded
    row without any identifying cell, and identifying cells that had to be escaped (they start
    like a formula)."""
    table = gradebook.table
    notes = []
    for person in gradebook.people:
        if person.row in cells and not any(table.rows[person.row][position].strip() for position in gradebook.keys):
            named = " or ".join(repr(table.header[position]) for position in gradebook.keys)
            notes.append(
                f"no identifier: {person.name} (row {person.row + 2}) has no {named}: the LMS cannot match its "
                f"grade {cells[person.row]}; enter it by hand"
            )
        for position in gradebook.keys:
            value = table.rows[person.row][position]
            if untrusted.csv_cell(value) != value:
                why = (
                    "starts like a spreadsheet formula"
                    if value.startswith(untrusted.FORMULA_STARTS)
                    else "holds a line break or a control character"
                )
                notes.append(
                    f"escaped: {person.name} (row {person.row + 2}): its {table.header[position]!r} {value!r} {why} "
                    f"and is written as {untrusted.csv_cell(value)!r}; "
                    f"{'its grade ' + cells[person.row] if person.row in cells else 'it'} may not be matched at "
                    "import: check that row by hand"
                )
    return notes


def import_rows(
    gradebook: Gradebook, column: Column, cells: dict[int, str], extra: Iterable[tuple[str, ...]] = ()
) -> list[tuple[str, ...]]:
    """The import's rows: the copied roster columns plus the grade column, header first (then
    ``extra`` rows), every roster student in roster order (an empty cell where no grade is given)."""
    table = gradebook.table
    rows = [tuple(table.header[position] for position in gradebook.copied) + (column.header,)]
    rows += list(extra)
    rows += [
        tuple(table.rows[person.row][position] for position in gradebook.copied) + (cells.get(person.row, ""),)
        for person in gradebook.people
    ]
    return rows


def parse_points(text: str) -> float | None:
    """Points possible as an export writes them (``100``, ``100.00``, ``100,00``), else None."""
    text = text.strip().replace(",", ".") if "." not in text else text.strip()
    try:
        return float(text)
    except ValueError:
        return None
