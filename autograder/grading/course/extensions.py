"""Per-student extensions: a CSV file naming students (by email or SID) and their new due dates,
given as ``grade --extensions FILE`` or ``grading.yml``'s ``deadline.extensions``.

The first line names the columns: ``due`` and at least one of ``email``, ``sid`` or ``student``
(an email or a SID); other columns (a name, a reason) are ignored::

    email,sid,due,reason
    ada@example.edu,,2026-12-08 23:59,illness
    ,01234,2026-12-07T12:00:00-06:00,

A due date without an offset is read in ``deadline.timezone``. Every problem is a ``ValueError``
naming the file, the line and what to do; nothing is guessed.
"""

from __future__ import annotations

import csv
import datetime
import io
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from autograder.errors import InputError
from autograder.grading.course import deadlines

MAX_BYTES = 4 << 20  # a class's extensions fit in a few KiB
ID_COLUMNS = ("email", "sid", "student")
EXAMPLE = "ada@example.edu,2026-12-08 23:59"


@dataclass(frozen=True)
class Extensions:
    """Who has a new due date: ``(kind, normalised value) -> due``, kind ``email`` or ``sid``."""

    dates: dict[tuple[str, str], datetime.datetime]
    source: str = ""
    lines: dict[tuple[str, str], int] | None = None  # the same keys -> the line that gave them (to name unused ones)

    def due(self, email: str, sid: str) -> datetime.datetime | None:
        found = [self.dates.get(("email", key(email))), self.dates.get(("sid", key(sid)))]
        return max((date for date in found if date is not None), default=None)


def key(value: str) -> str:
    """How identifiers are compared: without surrounding blanks or case (an SID's zeros count)."""
    return value.strip().casefold()


def read(path: Path, deadline: deadlines.Deadline) -> Extensions:
    """The extensions in ``path`` against ``deadline`` (its timezone reads dates without an offset)."""
    source = str(path)
    rows = list(csv.reader(io.StringIO(_text(path, source), newline="")))
    due_at, ids = _columns(rows, source)
    tz = deadline.tz()
    dates: dict[tuple[str, str], datetime.datetime] = {}
    lines: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        named = _named(row, number, ids, source)
        due = _due(row, number, due_at, deadline, tz, source)
        for kind, value in named:
            entry = (_kind(kind, value), key(value))
            if entry in lines:
                _fail(
                    source,
                    number,
                    f"{value} already has an extension on line {lines[entry]}: keep one line per student",
                )
            dates[entry], lines[entry] = due, number
    return Extensions(dates, source, lines)


def _fail(source: str, line: int | None, problem: str) -> NoReturn:
    """Refuse the file: a ValueError naming it, the line (if any) and the ``problem``."""
    where = f"{source}, line {line}" if line else source
    raise InputError(f"extensions file {where}: {problem}")


def _text(path: Path, source: str) -> str:
    """The file's text: readable, at most ``MAX_BYTES``, UTF-8 (a BOM dropped)."""
    try:
        data = Path(path).read_bytes()[: MAX_BYTES + 1]
    except OSError as error:
        _fail(
            source,
            None,
            f"cannot be read ({error.strerror}): give the path of a CSV file with the columns email or sid, due",
        )
    if len(data) > MAX_BYTES:
        _fail(source, None, f"is larger than {MAX_BYTES >> 20} MiB: is it really a list of extensions?")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        _fail(source, line, "is not UTF-8 text: save the file as UTF-8 CSV")


def _columns(rows: list[list[str]], source: str) -> tuple[int, list[tuple[str, int]]]:
    """Where the first line puts the due date, and each identifier column it names (kind, index)."""
    if not rows or not any(cell.strip() for cell in rows[0]):
        _fail(
            source,
            1,
            f"is empty: the first line names the columns, e.g. email,due; then one line a student ({EXAMPLE})",
        )
    header = [cell.strip().casefold() for cell in rows[0]]
    if "due" not in header or not set(ID_COLUMNS) & set(header):
        _fail(
            source,
            1,
            f"names the columns {', '.join(repr(cell) for cell in rows[0])}: it needs 'due' and one of 'email', "
            "'sid' or 'student' (e.g. a first line email,due)",
        )
    return header.index("due"), [(kind, header.index(kind)) for kind in ID_COLUMNS if kind in header]


def _named(row: list[str], number: int, ids: list[tuple[str, int]], source: str) -> list[tuple[str, str]]:
    """The identifiers line ``number`` gives (column kind, value); none: refused."""
    cells = {kind: row[at].strip() if at < len(row) else "" for kind, at in ids}
    named = [(kind, value) for kind, value in cells.items() if value]
    if not named:
        _fail(source, number, f"names no student ({', '.join(kind for kind, _ in ids)} empty): give an email or a SID")
    return named


def _due(
    row: list[str], number: int, due_at: int, deadline: deadlines.Deadline, tz: datetime.tzinfo, source: str
) -> datetime.datetime:
    """Line ``number``'s new due date, read in ``tz`` when it has no offset; refused if unreadable
    or before the class's."""
    written = row[due_at].strip() if due_at < len(row) else ""
    try:
        due = deadlines.parse(written, tz, "the due date")
    except ValueError as error:
        _fail(source, number, f"{error}")
    if due < deadline.due:
        _fail(
            source,
            number,
            f"the new due date {deadlines.shown(due, tz)} is before the class's, "
            f"{deadlines.shown(deadline.due, tz)}: an extension moves it later; fix the date",
        )
    return due


def _kind(kind: str, value: str) -> str:
    """What an identifier is: a ``student`` column's value is an email when it has an @, else a SID."""
    if kind == "student":
        return "email" if "@" in value else "sid"
    return kind
