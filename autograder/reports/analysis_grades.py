"""The written analysis's grades as its grading sheet gives them (``OUT/analysis.csv``, written by
``local/analysis_sheet.py``, filled in by a TA): the sheet read back and checked, for grades.csv (the
class step) and the LMS exports. A row is keyed by its submission, or, with the submission cell
empty, by its student as the roster names them (``sid``, else ``email``, else ``name``). A submission
the batch does not have, a student who is no one's or two people's (or has two submissions), a row
given twice, or points outside 0 to the rubric's maximum is an ``InputError`` naming the line and the
cell, and nothing of the sheet is applied. The analysis's points never change the code's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import InputError
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.results import Student
from autograder.grading.results import points as shown
from autograder.reports import output_paths, untrusted

COLUMNS = (
    "submission", "name", "email", "sid", "claims_points", "claims_max", "claims_feedback",
    "prose_points", "prose_max", "comment", "grader",
)  # fmt: skip
TA_COLUMNS = ("prose_points", "comment", "grader")  # what a TA writes: kept when the sheet is made again
MAX_BYTES = 20 << 20  # a sheet larger than this is not one
#: what names a row's student when its submission cell is empty, in this order (the roster's words)
STUDENT_KEYS = ("sid", "email", "name")


@dataclass(frozen=True)
class Entry:
    """One submission's row of the sheet, as read back."""

    submission: str
    claims_points: float
    prose_points: float | None  # None: not graded yet
    comment: str = ""
    grader: str = ""

    @property
    def total(self) -> float:
        return self.claims_points + (self.prose_points or 0.0)


def _rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The sheet's rows with their line numbers; ``InputError`` when it is not the sheet."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise InputError(f"{path} is larger than {MAX_BYTES >> 20} MiB: it is not an analysis sheet")
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path} cannot be read as UTF-8 text ({error}): save the sheet as CSV, UTF-8") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [column for column in ("submission", *TA_COLUMNS) if column not in (reader.fieldnames or ())]
    if missing:
        raise InputError(
            f"{path}: no column {', '.join(missing)}: keep the header the sheet was written with "
            "(python -m autograder analysis-sheet writes it)"
        )
    return [(reader.line_num, {key: value or "" for key, value in row.items() if key is not None}) for row in reader]


def _submission(cell: str, known: Collection[str], path: Path, line: int) -> str:
    by_cell = {untrusted.csv_cell(name): name for name in known}
    if cell not in by_cell:
        raise InputError(
            f"{path}, line {line}: submission {untrusted.terminal(cell)!r} is not one of the batch's "
            f"{len(known)} submissions: correct it or delete the row; nothing of the sheet was applied"
        )
    return by_cell[cell]


def _by_student(row: dict[str, str], students: Mapping[str, Sequence[Student]], path: Path, line: int) -> str:
    """The one submission of the student a row names by ``STUDENT_KEYS`` (its submission cell empty)."""
    key = next((key for key in STUDENT_KEYS if row.get(key, "").strip()), None)
    if key is None:
        raise InputError(
            f"{path}, line {line}: the row names no submission and no student: fill in its submission, or the "
            "student's sid, email or name as the roster gives them; nothing of the sheet was applied"
        )
    cell = row[key]
    wanted = {part.strip().casefold() for part in cell.split(";") if part.strip()}
    people: dict[tuple[str, str, str], set[str]] = {}
    for submission, members in students.items():
        for student in members:
            value = getattr(student, key).strip()
            if value and {value.casefold(), untrusted.csv_cell(value).casefold()} & wanted:
                people.setdefault((student.sid, student.email, student.name), set()).add(submission)
    found = sorted({submission for submissions in people.values() for submission in submissions})
    said = f"{key} {untrusted.terminal(cell)!r}"
    if not found:
        raise InputError(
            f"{path}, line {line}: {said} is no student of the batch's {len(students)} submissions: correct it as "
            "the roster gives it, or fill in the submission; nothing of the sheet was applied"
        )
    if len(found) > 1 and len(people) > 1:
        who = "; ".join(
            sorted(f"{name or email or sid} ({', '.join(sorted(subs))})" for (sid, email, name), subs in people.items())
        )
        raise InputError(
            f"{path}, line {line}: {said} names {len(people)} students: {who}; give the student's sid, or the "
            "submission; nothing of the sheet was applied"
        )
    if len(found) > 1:
        raise InputError(
            f"{path}, line {line}: {said} has {len(found)} submissions ({', '.join(found)}): fill in the submission "
            "to grade; nothing of the sheet was applied"
        )
    return found[0]


def _whose(
    row: dict[str, str], known: Collection[str], students: Mapping[str, Sequence[Student]] | None, path: Path, line: int
) -> str:
    """The submission a row is about: its submission cell, else (``students`` given) its student's."""
    if row["submission"].strip() or students is None:
        return _submission(row["submission"], known, path, line)
    return _by_student(row, students, path, line)


def ta_cells(
    path: Path, known: Collection[str], students: Mapping[str, Sequence[Student]] | None = None
) -> dict[str, dict[str, str]]:
    """The TA's cells of each row of an existing sheet (rows of submissions no longer there: an error)."""
    return {_whose(row, known, students, path, line): {c: row[c] for c in TA_COLUMNS} for line, row in _rows(path)}


def _points(cell: str, most: float, what: str, path: Path, line: int) -> float:
    try:
        value = float(cell)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= most:
        raise InputError(
            f"{path}, line {line}: {what} {untrusted.terminal(cell)!r} is not a number of points from 0 to "
            f"{shown(most)}: correct it (leave prose_points empty when not graded yet); nothing of the sheet "
            "was applied"
        )
    return value


def read(
    path: Path,
    submissions: Collection[str],
    rubric_points: AnalysisPoints,
    students: Mapping[str, Sequence[Student]] | None = None,
) -> dict[str, Entry]:
    """The sheet at ``path`` for a batch of ``submissions`` (``students``: each one's students, for the
    rows keyed by student): submission -> its entry; ``InputError`` naming the line and the cell of
    the first mistake (nothing is applied then)."""
    entries: dict[str, Entry] = {}
    for line, row in _rows(path):
        submission = _whose(row, submissions, students, path, line)
        if submission in entries:
            raise InputError(f"{path}, line {line}: submission {submission} has a row already; keep one")
        prose = row["prose_points"].strip()
        entries[submission] = Entry(
            submission=submission,
            claims_points=_points(
                row.get("claims_points", "0") or "0", rubric_points.claims_max, "claims_points", path, line
            ),
            prose_points=_points(prose, rubric_points.prose_points, "prose_points", path, line) if prose else None,
            comment=row["comment"],
            grader=row["grader"],
        )
    return entries


def merged(
    out: Path,
    submissions: Collection[str],
    rubric_points: AnalysisPoints | None,
    students: Mapping[str, Sequence[Student]] | None = None,
) -> Mapping[str, Entry] | None:
    """The sheet of the batch in ``out`` when there is one and the rubric grades the analysis, else None."""
    path = Path(out) / output_paths.ANALYSIS_SHEET
    if rubric_points is None or not path.is_file():
        return None
    return read(path, submissions, rubric_points, students)
