"""The written analysis into an LMS (``export --part analysis``): the grading sheet's points of the
submission that counts for each student, in the chosen column; a student the sheet has not graded
left empty and said; without a sheet, a clear error. The batch is test_lms.py's (no sandbox)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.errors import InputError
from autograder.grading.analysis.points import AnalysisPoints
from autograder.lms import export
from autograder.reports import analysis_grades, output_paths
from tests.lms.test_lms import FIXTURES, _rows, write_batch

POINTS = AnalysisPoints()
HEADER = ",".join(analysis_grades.COLUMNS) + "\n"
#: the sheet: Jane graded (4 + 3), Raj's prose not graded yet, Ada's earlier and latest submissions graded
SHEET = (
    "submission_1001,,,,4,4,,3,4,,TA\n"
    "submission_1002,,,,2,4,,,4,,\n"
    "submission_1004,,,,0,4,,1,4,,TA\n"
    "submission_1005,,,,4,4,,4,4,,TA\n"
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = write_batch(tmp_path_factory.mktemp("analysis-lms") / "out")
    (out / output_paths.ANALYSIS_SHEET).write_text(HEADER + SHEET, encoding="utf-8")
    return out


def test_canvas_gets_the_analysis_points_of_the_submission_that_counts(graded):
    """Does each student get the analysis's points of their counted submission (Ada's latest: 8), a student
    without graded prose an empty cell with the reason said, and the points possible compared with 8?"""
    made = export.build("canvas", FIXTURES / "canvas.csv", graded, "Lab 05", analysis=POINTS)
    cells = {row[0]: row[-1] for row in _rows(made.text)[2:]}
    assert (cells["Doe, Jane"], cells["Patel, Raj"], cells["Lovelace, Ada"], cells["Turing, Alan"]) == (
        "7",
        "",
        "8",
        "",
    )
    said = "\n".join(made.messages)
    assert (
        "analysis not graded: Patel, Raj (row 9): submission_1002 has no prose_points yet in the grading sheet" in said
    )
    assert "submission_1003 has no row in the grading sheet: left empty" in said
    assert "the grades are out of 8" in said


def test_the_code_export_is_unchanged_by_a_sheet(graded, tmp_path):
    """Is the code's export the same with a grading sheet in the batch as without it?"""
    with_sheet = export.build("canvas", FIXTURES / "canvas.csv", graded, "Lab 05").text
    plain = export.build("canvas", FIXTURES / "canvas.csv", write_batch(tmp_path / "out"), "Lab 05").text
    assert with_sheet == plain


def test_no_sheet_is_a_clear_error(tmp_path):
    """Does exporting the analysis of a batch without a grading sheet say how to make one?"""
    with pytest.raises(InputError, match=r"has no analysis\.csv: write it with python -m autograder analysis-sheet"):
        export.build("canvas", FIXTURES / "canvas.csv", write_batch(tmp_path / "out"), "Lab 05", analysis=POINTS)


def test_cli_exports_the_analysis(graded, tmp_path):
    """Does `export --part analysis` write the analysis's import?"""
    out = tmp_path / "analysis-import.csv"
    command = [sys.executable, "-m", "autograder", "export", str(graded), "--lms", "moodle"]
    command += ["--roster", str(FIXTURES / "moodle.csv"), "--out", str(out), "--column", "lab 05", "--part", "analysis"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert ["jdoe@example.edu", "7"] in _rows(out.read_text(encoding="utf-8"))


def test_an_override_reaches_the_lms_export(tmp_path):
    """Does an override in OUT/overrides.csv, applied by the class step, reach the code's export?"""
    out = tmp_path / "out"
    out.mkdir()
    (out / "overrides.csv").write_text(
        "student,target,points,delta,reason,who\njdoe@example.edu,q1,,2.5,regrade request,TA Lin\n", encoding="utf-8"
    )
    write_batch(out)
    cells = {row[0]: row[-1] for row in _rows(export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05").text)[2:]}
    assert (cells["Doe, Jane"], cells["Patel, Raj"]) == ("90", "64")
