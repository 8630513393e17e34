"""Reading a submission's zip: a zip too large to search says so and what to do, whatever its end
record claims; a zip within the limits is read."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import subs

from autograder.grading import intake


def _zip(path: Path, filler: int, name_length: int = 0) -> Path:
    """``filler`` entries first (a zipped virtual environment), then the solutions' two graded files."""
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(filler):
            archive.writestr(f"venv/lib/f{number}".ljust(name_length, "x"), b"")
        for name, text in subs.SOLUTION.items():
            archive.writestr(f"lab05/{name}", text)
    return path


def _understate(path: Path, count: int) -> Path:
    """The end record's entry counts set to ``count`` (as tools without ZIP64 write 65,536 + count)."""
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = count.to_bytes(2, "little") * 2
    path.write_bytes(bytes(data))
    return path


@dataclass(frozen=True)
class ZipCase:
    id: str
    make: object  # path -> the zip
    problem: str  # "" when both files are read


TOO_MANY = "more than the 10000 the grader reads, so it was not searched for your files: zip only lab05/metrics.py"

CASES = [
    ZipCase("virtualenv-first", lambda p: _zip(p, 12000), f"submission.zip holds 12002 entries, {TOO_MANY}"),
    ZipCase(
        "end-record-understates",
        lambda p: _understate(_zip(p, 12000), 2),
        f"submission.zip holds 12002 entries, {TOO_MANY}",
    ),
    ZipCase(
        "huge-directory",
        lambda p: _understate(_zip(p, 1000, name_length=10500), 2),
        "submission.zip's list of entries takes 10 MiB: more entries than the 10000 the grader reads, so it was "
        "not searched for your files",
    ),
    ZipCase("at-the-limit", lambda p: _zip(p, 9998), ""),
    ZipCase("small", lambda p: _zip(p, 3), ""),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_large_zip_says_it_has_too_many_entries(tmp_path, case):
    """Does a zip past the entry limit say so and what to do (not "no metrics.py found"), and is a zip
    within it read?"""
    staged = intake.read(intake.Source("s", case.make(tmp_path / "submission.zip")))
    if not case.problem:
        assert staged.problems == []
        assert staged.files == {name: text.encode() for name, text in subs.SOLUTION.items()}
        return
    assert staged.files == {}
    assert staged.problems[0].startswith(case.problem), staged.problems
    assert "submit the two files themselves" in staged.problems[0]
    assert not any("found in the submission" in problem for problem in staged.problems), staged.problems


def test_directory_figures_are_read_from_the_end_record(tmp_path):
    """Does zip_directory read the entry count and the directory's size that zipfile finds?"""
    path = _zip(tmp_path / "submission.zip", 5)
    with zipfile.ZipFile(path) as archive:
        entries = archive.infolist()
    count, length = intake.zip_directory(path)
    assert count == len(entries) == 7
    assert length == sum(46 + len(entry.filename) + len(entry.extra) + len(entry.comment) for entry in entries)
