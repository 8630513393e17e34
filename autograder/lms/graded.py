"""A graded batch read back: the output folder of ``python -m autograder grade``.

Each submission's full result is ``DIR/submissions/<submission>/grade.json``, read through the result
model (``SubmissionResult.from_dict``). ``DIR/grades.csv`` is written when a batch finishes
and lists exactly its submissions: a folder without it is a batch that did not finish, a
listed submission without its grade.json is an error, and a grade.json it does not list (left
by an earlier batch into the same folder) is ignored with a note.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.results import SubmissionResult
from autograder.reports import csvcells, layout

GRADE_COMMAND = "python -m autograder grade PATH... --out DIR"


@dataclass(frozen=True)
class Batch:
    folder: Path
    results: tuple[SubmissionResult, ...]  # sorted by submission id
    notes: tuple[str, ...]  # for the instructor: what was left out, and why


def _listed(grades: Path) -> list[str]:
    try:
        with grades.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{grades} cannot be read ({error}): grade the batch again ({GRADE_COMMAND})") from None
    if not rows or not rows[0] or rows[0][0] != "submission":
        raise ValueError(
            f"{grades} is not the grader's grades.csv (its first column is not 'submission'): "
            f"pass the folder {GRADE_COMMAND} wrote"
        )
    return [row[0] for row in rows[1:] if row]


def read(folder: Path) -> Batch:
    """Every result of the graded batch in ``folder``; ``ValueError`` naming what is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no graded batch at {folder}: pass the folder given to {GRADE_COMMAND}")
    stored = {path.parent.name: path for path in (folder / layout.SUBMISSIONS).glob("*/grade.json")}
    grades = folder / layout.GRADES
    if not stored:
        raise ValueError(
            f"{folder} is not a graded batch (no submissions/<submission>/grade.json in it): grade the submissions "
            f"first with {GRADE_COMMAND}, then export DIR"
        )
    if not grades.is_file():
        raise ValueError(
            f"{folder} has grade.json files but no grades.csv: the batch did not finish; run the same "
            f"{GRADE_COMMAND} again (it skips what is already graded), then export"
        )
    listed = _listed(grades)
    by_cell = {csvcells.escape(name): name for name in stored}  # grades.csv escapes its cells
    missing = sorted(cell for cell in listed if cell not in by_cell)
    if missing:
        raise ValueError(
            f"{grades} lists {len(missing)} submission(s) without a grade.json ({', '.join(missing[:5])}): "
            f"grade the batch again ({GRADE_COMMAND})"
        )
    chosen = sorted(by_cell[cell] for cell in set(listed))
    notes = [
        f"ignored {layout.submission_folder(folder, name) / 'grade.json'}: not in grades.csv (left by an "
        "earlier batch into this folder)"
        for name in sorted(set(stored) - set(chosen))
    ]
    results = []
    for name in chosen:
        path = stored[name]
        try:
            result = SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError) as error:
            raise ValueError(
                f"{path} cannot be read ({type(error).__name__}: {str(error)[:100]}): grade the batch again "
                f"({GRADE_COMMAND}; an unreadable result is graded afresh)"
            ) from None
        results.append(result)
    return Batch(folder, tuple(results), tuple(notes))
