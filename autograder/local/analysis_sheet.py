"""The written analysis's grading sheet for a class: ``OUT/analysis.csv``, a row per submission,
its claims already checked against the data (``grading/analysis/``) and its prose for a TA to grade;
read back, checked, into ``grades.csv`` (``classwork.finish``).

``write`` makes the sheet from the submissions (the same PATHs as ``grade``) and keeps what a TA
already wrote in it (``prose_points``, ``comment``, ``grader``) when it is made again, so a regrade
never loses a TA's work. ``read`` takes the sheet back: a submission the batch does not have, a row
given twice, or points outside 0 to the rubric's maximum is an ``InputError`` naming the line and
the cell, and nothing of the sheet is applied. The analysis's points never change the code's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder import cache
from autograder.errors import InputError
from autograder.grading import intake
from autograder.grading.analysis import claims, facts
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.results import points as shown
from autograder.labkit.lab import Lab
from autograder.reports import output_paths, untrusted

FILE = "analysis.yml"  # the file of a submission the claims are read from
COLUMNS = (
    "submission", "name", "email", "sid", "claims_points", "claims_max", "claims_feedback",
    "prose_points", "prose_max", "comment", "grader",
)  # fmt: skip
TA_COLUMNS = ("prose_points", "comment", "grader")  # what a TA writes: kept when the sheet is made again
MAX_BYTES = 20 << 20  # a sheet larger than this is not one


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


def claims_of(source: intake.Source, known: facts.Facts, rubric_points: AnalysisPoints, lab: Lab) -> tuple[float, str]:
    """A submission's claims points and the feedback that explains them (why 0, or each claim's verdict)."""
    staged = intake.read_other(source, FILE, lab)
    if FILE not in staged.files:
        return 0.0, f"no {FILE} read: " + ("; ".join(staged.problems) or "the submission has none")
    try:
        analysis = claims.parse(staged.files[FILE].decode("utf-8"), known.names(), source=FILE)
    except (claims.AnalysisError, UnicodeDecodeError) as error:
        return 0.0, str(error)
    verdicts = facts.check(analysis, known)
    said = [f"{v.title()}: " + ("holds" if v.holds else "; ".join(v.problems)) for v in verdicts]
    beyond = len(verdicts) - rubric_points.claims
    if beyond > 0:
        said.append(f"claims after the first {rubric_points.claims} count for nothing ({beyond} more)")
    return rubric_points.claims_score(verdicts), " | ".join(said)


def write(
    out: Path, sources: Sequence[intake.Source], known: facts.Facts, rubric_points: AnalysisPoints, lab: Lab
) -> Path:
    """``OUT/analysis.csv`` for ``sources``, keeping the TA's cells of a sheet already there."""
    path = Path(out) / output_paths.ANALYSIS_SHEET
    kept = _ta_cells(path, {source.id for source in sources}) if path.exists() else {}
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for source in sorted(sources, key=lambda source: source.id):
        score, feedback = claims_of(source, known, rubric_points, lab)
        ta = kept.get(source.id, {})
        people = source.students
        writer.writerow(
            untrusted.csv_row(
                [
                    source.id,
                    "; ".join(student.name for student in people),
                    "; ".join(student.email for student in people),
                    "; ".join(student.sid for student in people),
                    shown(score),
                    shown(rubric_points.claims_max),
                    feedback,
                    ta.get("prose_points", ""),
                    shown(rubric_points.prose_points),
                    ta.get("comment", ""),
                    ta.get("grader", ""),
                ]
            )
        )
    Path(out).mkdir(parents=True, exist_ok=True)
    cache.write_atomic(path, text.getvalue().encode(), 0o644)
    return path


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


def _ta_cells(path: Path, known: Collection[str]) -> dict[str, dict[str, str]]:
    """The TA's cells of each row of an existing sheet (rows of submissions no longer there: an error)."""
    return {
        _submission(row["submission"], known, path, line): {c: row[c] for c in TA_COLUMNS} for line, row in _rows(path)
    }


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


def read(path: Path, submissions: Collection[str], rubric_points: AnalysisPoints) -> dict[str, Entry]:
    """The sheet at ``path`` for a batch of ``submissions``: submission -> its entry; ``InputError``
    naming the line and the cell of the first mistake (nothing is applied then)."""
    entries: dict[str, Entry] = {}
    for line, row in _rows(path):
        submission = _submission(row["submission"], submissions, path, line)
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


def merged(out: Path, submissions: Collection[str], rubric_points: AnalysisPoints | None) -> Mapping[str, Entry] | None:
    """The sheet of the batch in ``out`` when there is one and the rubric grades the analysis, else None."""
    path = Path(out) / output_paths.ANALYSIS_SHEET
    if rubric_points is None or not path.is_file():
        return None
    return read(path, submissions, rubric_points)
