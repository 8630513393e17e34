"""A graded batch read back: the output folder of ``python -m autograder grade``.

Each submission's full result is ``DIR/submissions/<submission>/grade.json``, read through the result
model (``SubmissionResult.from_dict``); its lateness is stored in it, as its student was told.
``DIR/class.json`` is written last when a batch finishes (``local/classwork.py``): it lists exactly
its submissions and the policy that chose each student's (``grading/course/standing.py``), which an
export applies again. A folder without it is a batch that did not finish, a listed submission
without its grade.json is an error, and a grade.json it does not list (left by an earlier batch
into the same folder) is ignored with a note. A platform's export given instead (a Gradescope export
of submissions, a grades download of Gradescope or PrairieLearn) is named as such: what reads a
graded batch (``export``, ``changes``; the overrides apply in one) cannot apply to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import InputError, MissingError
from autograder.grading.course import metadata
from autograder.grading.course.standing import DEFAULT_POLICY, POLICIES
from autograder.grading.results import SubmissionResult
from autograder.reports import output_paths

GRADE_COMMAND = "python -m autograder grade PATH... --out DIR"
#: a grades download's header, by the columns that name its platform (casefolded)
DOWNLOADS = {
    "PrairieLearn's": ("uid", "uin"),
    "Gradescope's": ("submission id", "total score"),
}
PLATFORM_TOOLS = (
    "graded there, grades change there (Gradescope: Regrade Requests, or a point adjustment on a manually "
    "graded question; PrairieLearn: the assessment instance's question points, or manual grading), or grade "
    f"the submissions here first ({GRADE_COMMAND}) and keep overrides.csv in DIR"
)


@dataclass(frozen=True)
class Batch:
    folder: Path
    results: tuple[SubmissionResult, ...]  # sorted by submission id
    notes: tuple[str, ...]  # for the instructor: what was left out, and why
    policy: str = DEFAULT_POLICY  # which submission of a student counts


def _listed(record: Path) -> tuple[list[str], str]:
    """The submissions ``class.json`` lists, and its policy."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InputError(f"{record} cannot be read ({error}): grade the batch again ({GRADE_COMMAND})") from None
    data = data if isinstance(data, dict) else {}
    listed, policy = data.get("submissions"), data.get("policy", DEFAULT_POLICY)
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed) or policy not in POLICIES:
        raise InputError(
            f"{record} is not the grader's class.json (no list of submissions and policy): pass the folder "
            f"{GRADE_COMMAND} wrote, or grade it again"
        )
    return listed, policy


def platform_export(path: Path) -> str | None:
    """What platform's export ``path`` is, in words (None: none that is recognised): a folder with
    Gradescope's ``submission_metadata.yml``, or a CSV whose header names a platform's columns."""
    path = Path(path)
    if path.is_dir():
        found = (path / metadata.FILE_NAME).is_file()
        return f"a Gradescope export of submissions (it holds {metadata.FILE_NAME})" if found else None
    if not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16).decode("utf-8-sig", "replace")
    except OSError:
        return None
    header = {cell.strip().strip('"').casefold() for cell in first.split(",")}
    for platform, columns in DOWNLOADS.items():
        if header & set(columns):
            return f"{platform} grades download (its columns {', '.join(sorted(header & set(columns)))})"
    return None


def read(folder: Path) -> Batch:
    """Every result of the graded batch in ``folder``; ``ValueError`` naming what is missing."""
    folder = Path(folder)
    exported = platform_export(folder)
    if exported is not None and not (folder / output_paths.CLASS).is_file():
        raise InputError(
            f"{folder} is {exported}, not a graded batch: nothing of it can be compared or adjusted here; "
            f"{PLATFORM_TOOLS}"
        )
    if not folder.is_dir():
        raise MissingError(f"no graded batch at {folder}: pass the folder given to {GRADE_COMMAND}")
    stored = {path.parent.name: path for path in (folder / output_paths.SUBMISSIONS).glob("*/grade.json")}
    record = folder / output_paths.CLASS
    if not stored:
        raise InputError(
            f"{folder} is not a graded batch (no submissions/<submission>/grade.json in it): grade the submissions "
            f"first with {GRADE_COMMAND}, then export DIR"
        )
    if not record.is_file():
        raise InputError(
            f"{folder} has grade.json files but no {output_paths.CLASS}: the batch did not finish (or was graded by an "
            f"older grader); run the same {GRADE_COMMAND} again (it skips what is already graded), then export"
        )
    listed, policy = _listed(record)
    missing = sorted(name for name in listed if name not in stored)
    if missing:
        raise InputError(
            f"{record} lists {len(missing)} submission(s) without a grade.json ({', '.join(missing[:5])}): "
            f"grade the batch again ({GRADE_COMMAND})"
        )
    chosen = sorted(set(listed))
    notes = [
        f"ignored {output_paths.submission_folder(folder, name) / 'grade.json'}: not in {output_paths.CLASS} "
        "(left by an earlier batch into this folder)"
        for name in sorted(set(stored) - set(chosen))
    ]
    results = []
    for name in chosen:
        path = stored[name]
        try:
            result = SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError) as error:
            raise InputError(
                f"{path} cannot be read ({type(error).__name__}: {str(error)[:100]}): grade the batch again "
                f"({GRADE_COMMAND}; an unreadable result is graded afresh)"
            ) from None
        results.append(result)
    return Batch(folder, tuple(results), tuple(notes), policy)
