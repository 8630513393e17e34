"""Blackboard Learn: its Grade Center download in, a grade upload out.

The download (Grade Center > Work Offline > Download, with user information) starts with
``Last Name``, ``First Name``, ``Username``, ``Student ID``, ``Last Access``, ``Availability``
(the set varies by version: columns are found by name); each grade column's header ends in
its column id, ``Lab 05 [Total Pts: 100 Score] |3400062``. It is tab-delimited with the
extension ``.xls`` (not a workbook; reported to be UTF-16 with a byte-order mark) or
comma-delimited ``.csv``.

The upload keys rows on ``Username`` and columns on the ``|<column id>``; a header without
one creates a new text column worth 0 points, so only the download's own columns are offered,
and calculated ones (``[Total Pts: up to ...]``) and text columns are left out. The file
written is tab-delimited UTF-8 (Blackboard's recommendation), or comma-delimited with every
field quoted when ``--out`` ends in ``.csv``; it holds ``Last Name``, ``First Name``,
``Username`` and the grade column. Students are matched by ``Student ID`` or ``Username`` (SID)
and by an ``Email`` column or a ``Username`` that is an email.
"""

from __future__ import annotations

import re

from autograder.lms import tables
from autograder.lms.roster import Column, Format, Gradebook, Person, import_rows, parse_points, require
from autograder.lms.tables import Table

COLUMN = re.compile(
    r"^(?P<title>.*?)\s*"
    r"(?:\[Total Pts: (?P<upto>up to )?(?P<points>[\d.,]+)(?: (?P<display>[^\]]+))?\])?"
    r"\s*\|(?P<id>\d+)$"
)


def _gradable(header: str) -> Column | None:
    found = COLUMN.match(header)
    if not found or found["upto"] or (found["display"] or "").strip().casefold() == "text":
        return None
    return Column(header, found["title"], parse_points(found["points"]) if found["points"] else None)


def read(table: Table) -> Gradebook:
    username = require(table, FORMAT, "Username")
    last, first = table.index("Last Name"), table.index("First Name")
    sid, email = table.index("Student ID"), table.index("Email", "Email Address")
    people = []
    for number, row in enumerate(table.rows):
        name = " ".join(row[p].strip() for p in (first, last) if p is not None and row[p].strip())
        emails = [row[email]] if email is not None else []
        sids = [row[sid]] if sid is not None else []
        (emails if "@" in row[username] else sids).append(row[username])
        people.append(Person(number, name or row[username].strip(), tuple(emails), tuple(sids)))
    columns = tuple(column for column in map(_gradable, table.header) if column is not None)
    copied = tuple(position for position in (last, first, username) if position is not None)
    return Gradebook(table=table, people=tuple(people), columns=columns, copied=copied, keys=(username,))


def render(gradebook: Gradebook, column: Column, cells: dict[int, str], suffix: str) -> str:
    rows = import_rows(gradebook, column, cells)
    if suffix.lower() == ".csv":
        return tables.render(rows, ",", quote_all=True)
    return tables.render(rows, "\t")


FORMAT = Format(
    name="Blackboard",
    export_hint=(
        "Download it from Blackboard: Grade Center > Work Offline > Download (the full Grade Center or the "
        "column, with user information: Last Name, First Name, Username, Student ID)."
    ),
    read=read,
    render=render,
)
