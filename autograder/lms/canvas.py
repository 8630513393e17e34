"""Canvas: its gradebook export in, a gradebook import out.

The export (Grades > Export > Export Entire Gradebook) starts with the student columns
``Student``, ``ID``, ``SIS User ID`` (when SIS ids are shown), ``SIS Login ID``, sometimes
``Integration ID`` and ``Root Account``, and ends them with ``Section``; then one column per
assignment, ``<title> (<assignment id>)``, then totals. Right after the header (and an optional
``Muted``/``Manual Posting`` marker row) a ``    Points Possible`` row gives each assignment's
points: it is recognised by that place and its content (its first cell exactly ``Points Possible``
once stripped, its ``ID`` and SIS cells empty), so a student whose name holds those words is a
student wherever they are. Comma or semicolon, depending on the user's CSV settings, perhaps with
a byte-order mark.

The import keeps the student columns up to ``Section`` as exported (Canvas refuses a header
whose last student column is not ``Section``, and matches rows by ``ID``, then ``SIS User
ID``, then ``SIS Login ID``), the ``Points Possible`` row, and one assignment column with its
``(id)``, which routes the grades into that assignment (any other column would be created as
a new assignment). Students are matched to submissions by ``SIS Login ID`` when it is an email,
else by ``SIS User ID`` or ``SIS Login ID`` as SID.
"""

from __future__ import annotations

import re

from autograder.grading.results import points
from autograder.lms import tables
from autograder.lms.roster import Column, Format, Gradebook, Person, import_rows, parse_points, require
from autograder.lms.tables import Table

ASSIGNMENT = re.compile(r"^(?P<title>.*\S)\s*\((?P<id>\d+)\)$")
POINTS_ROW = "    Points Possible"


def _marker(row: tuple[str, ...]) -> bool:
    """Canvas' ``Muted`` / ``Manual Posting`` row above the points row."""
    cells = [cell.strip() for cell in row if cell.strip()]
    return not row[0].strip() and all(cell == "Muted" or cell.startswith("Manual Posting") for cell in cells)


def _preamble(rows: tuple[tuple[str, ...], ...], keys: tuple[int, ...]) -> tuple[int, tuple[str, ...] | None]:
    """How many rows come before the students (the marker row, the points row), and the points
    row: the row right after the header or the marker, labelled exactly ``Points Possible``, with
    no ``ID`` or SIS identifier (every student has an ``ID``)."""
    start = 1 if rows and _marker(rows[0]) else 0
    if start < len(rows):
        row = rows[start]
        if row[0].strip() == POINTS_ROW.strip() and not any(row[key].strip() for key in keys):
            return start + 1, row
    return start, None


def read(table: Table) -> Gradebook:
    section = require(table, FORMAT, "Section")
    require(table, FORMAT, "ID")
    naming = _naming(table)
    sis_user, sis_login = _sis(table)
    keys = tuple(position for position in (table.index("ID"), sis_user, sis_login) if position is not None)
    start, points_row = _preamble(table.rows, keys)
    possible = {position: parse_points(cell) for position, cell in enumerate(points_row or ())}
    people = [  # numbered as in the file, for messages
        _person(number, row, naming, sis_user, sis_login) for number, row in enumerate(table.rows[start:], start)
    ]
    columns = tuple(
        Column(header, found["title"], possible.get(position))
        for position, header in enumerate(table.header)
        if position > section and (found := ASSIGNMENT.match(header))
    )
    return Gradebook(
        table=table,
        people=tuple(people),
        columns=columns,
        copied=tuple(range(section + 1)),
        keys=keys,
        notes=_points_notes(table, people),
    )


def _naming(table: Table) -> tuple[int | None, ...]:
    """The columns a student's name is in: ``Student``, else ``FirstName`` and ``LastName`` (neither: refused)."""
    student = table.index("Student")
    first, last = table.index("FirstName"), table.index("LastName")
    if student is None and (first is None or last is None):
        require(table, FORMAT, "Student")
    return (student,) if student is not None else (first, last)


def _sis(table: Table) -> tuple[int | None, int | None]:
    """The ``SIS User ID`` and ``SIS Login ID`` columns (at least one: else refused)."""
    sis_user, sis_login = table.index("SIS User ID"), table.index("SIS Login ID")
    if sis_user is None and sis_login is None:
        require(table, FORMAT, "SIS Login ID", "SIS User ID")
    return sis_user, sis_login


def _person(
    number: int, row: tuple[str, ...], naming: tuple[int | None, ...], sis_user: int | None, sis_login: int | None
) -> Person:
    """A student row: the name, the SIS Login ID as an email (with an @) or a SID, the SIS User ID as a SID."""
    name = " ".join(row[p].strip() for p in naming if p is not None)
    emails: list[str] = []
    sids: list[str] = []
    if sis_login is not None:
        (emails if "@" in row[sis_login] else sids).append(row[sis_login])
    if sis_user is not None:
        sids.append(row[sis_user])
    return Person(number, name.strip(), tuple(emails), tuple(sids))


def _points_notes(table: Table, people: list[Person]) -> tuple[str, ...]:
    """A note for each student whose first cell holds 'Points Possible' (Canvas' import mistakes it)."""
    return tuple(
        f"'Points Possible' in a name: {person.name} (row {person.row + 2}): Canvas's gradebook import takes any row "
        "whose first cell holds 'Points Possible' for its points row, not a student: check this student's grade in "
        "Canvas after the import"
        for person in people
        if POINTS_ROW.strip() in table.rows[person.row][0]
    )


def render(gradebook: Gradebook, column: Column, cells: dict[int, str], suffix: str) -> str:
    """Comma-separated UTF-8 (Canvas detects the delimiter; a comma file imports everywhere)."""
    extra = []
    if column.points is not None:
        extra.append((POINTS_ROW,) + ("",) * (len(gradebook.copied) - 1) + (points(column.points),))
    return tables.render(import_rows(gradebook, column, cells, extra))


FORMAT = Format(
    name="Canvas",
    export_hint=(
        "Download it from Canvas: Grades > Export > Export Entire Gradebook (a CSV starting with Student, ID, "
        "SIS User ID, SIS Login ID, Section)."
    ),
    read=read,
    render=render,
)
