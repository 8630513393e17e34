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

    def fail(line: int | None, problem: str) -> NoReturn:
        where = f"{source}, line {line}" if line else source
        raise ValueError(f"extensions file {where}: {problem}")

    try:
        data = Path(path).read_bytes()[: MAX_BYTES + 1]
    except OSError as error:
        fail(None, f"cannot be read ({error.strerror}): give the path of a CSV file with the columns email or sid, due")
    if len(data) > MAX_BYTES:
        fail(None, f"is larger than {MAX_BYTES >> 20} MiB: is it really a list of extensions?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        fail(line, "is not UTF-8 text: save the file as UTF-8 CSV")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows or not any(cell.strip() for cell in rows[0]):
        fail(1, f"is empty: the first line names the columns, e.g. email,due; then one line a student ({EXAMPLE})")
    header = [cell.strip().casefold() for cell in rows[0]]
    if "due" not in header or not set(ID_COLUMNS) & set(header):
        fail(
            1,
            f"names the columns {', '.join(repr(cell) for cell in rows[0])}: it needs 'due' and one of 'email', "
            "'sid' or 'student' (e.g. a first line email,due)",
        )
    due_at = header.index("due")
    ids = [(kind, header.index(kind)) for kind in ID_COLUMNS if kind in header]
    tz = deadline.tz()
    dates: dict[tuple[str, str], datetime.datetime] = {}
    lines: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {kind: row[at].strip() if at < len(row) else "" for kind, at in ids}
        named = [(kind, value) for kind, value in cells.items() if value]
        if not named:
            fail(number, f"names no student ({', '.join(kind for kind, _ in ids)} empty): give an email or a SID")
        written = row[due_at].strip() if due_at < len(row) else ""
        try:
            due = deadlines.parse(written, tz, "the due date")
        except ValueError as error:
            fail(number, f"{error}")
        if due < deadline.due:
            fail(
                number,
                f"the new due date {deadlines.shown(due, tz)} is before the class's, "
                f"{deadlines.shown(deadline.due, tz)}: an extension moves it later; fix the date",
            )
        for kind, value in named:
            if kind == "student":
                kind = "email" if "@" in value else "sid"
            entry = (kind, key(value))
            if entry in lines:
                fail(number, f"{value} already has an extension on line {lines[entry]}: keep one line per student")
            dates[entry], lines[entry] = due, number
    return Extensions(dates, source, lines)
