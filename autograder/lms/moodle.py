"""Moodle: its grade export in, a grade import out.

The export (Grades > Export > Plain text file) holds the user fields the site exports (by
default ``First name``, ``Last name`` (``Surname`` before Moodle 4), ``ID number``,
``Institution``, ``Department``, ``Email address``), one column per grade item and display type,
``<Activity>: <item> (Real)``, the ``Course total (Real)``, and ``Last downloaded from this
course``; the separator is the user's choice (comma, tab, semicolon).

Moodle's import (Grades > Import > CSV file) maps the columns by hand: one identifier column
("Map from" that column, "Map to" email address, ID number or username) and each grade column
to a grade item. So the import here has exactly two columns: the roster's most complete
identifier (``Email address``, else ``ID number``, else ``Username``) and the grade column,
named as the chosen item is in the export (or any name given with --column: a new item).
Students are matched by ``Email address`` (email) and ``ID number`` or ``Username`` (SID).
"""

from __future__ import annotations

import re

from autograder.lms import tables
from autograder.lms.roster import Column, Format, Gradebook, Person, import_rows, require
from autograder.lms.tables import Table

IDENTIFIERS = ("Email address", "ID number", "Username")
ITEM = re.compile(r"^(?P<item>.*\S)\s*\(Real\)$")
TOTAL = re.compile(r"\btotal\s*\(Real\)$", re.IGNORECASE)


def read(table: Table) -> Gradebook:
    require(table, FORMAT, *IDENTIFIERS)
    email, idnumber, username = (table.index(name) for name in IDENTIFIERS)
    present = [position for position in (email, idnumber, username) if position is not None]
    identifier = min(present, key=lambda p: (sum(not row[p].strip() for row in table.rows), present.index(p)))
    first, last = table.index("First name"), table.index("Last name", "Surname")
    people = []
    for number, row in enumerate(table.rows):
        name = " ".join(row[p].strip() for p in (first, last) if p is not None and row[p].strip())
        people.append(
            Person(
                number,
                name or row[identifier].strip(),
                (row[email],) if email is not None else (),
                tuple(row[p] for p in (idnumber, username) if p is not None),
            )
        )
    columns = tuple(
        Column(header, found["item"])
        for header in table.header
        if (found := ITEM.match(header)) and not TOTAL.search(header)
    )
    return Gradebook(table=table, people=tuple(people), columns=columns, copied=(identifier,), keys=(identifier,))


def render(gradebook: Gradebook, column: Column, cells: dict[int, str], suffix: str) -> str:
    """Comma-separated UTF-8 (the import's default separator and encoding)."""
    return tables.render(import_rows(gradebook, column, cells))


FORMAT = Format(
    name="Moodle",
    export_hint=(
        "Download it from Moodle: Grades > Export > Plain text file, with the user fields Email address or "
        "ID number (Moodle's English column names)."
    ),
    read=read,
    render=render,
    new_columns=True,
)
