"""Where a graded batch's files are, in one place (the local batch writes them; the class report
links them; the LMS exports read them back):

    OUT/index.html                       the class report
    OUT/grades.csv                       one row per student
    OUT/class.json                       the batch's submissions and policy (written last: the batch is finished)
    OUT/analysis.csv                     the written analysis's grading sheet (``analysis-sheet``; a TA fills it in)
    OUT/submissions/<id>/results.json    Gradescope's format
    OUT/submissions/<id>/feedback.md     what the student reads
    OUT/submissions/<id>/feedback.html
    OUT/submissions/<id>/instructor.html the feedback with the hidden cases' expected values (instructors only)
    OUT/submissions/<id>/grade.json      the full record (instructors only)
    OUT/submissions/<id>/analysis-feedback.md  its analysis's claims checked (``analysis-sheet``; for the student)

Submissions live one folder down, so that no submission's name ("index.html", "grades.csv")
can collide with the batch's own files.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

SUBMISSIONS = "submissions"
PREVIOUS = "grade.previous.json"  # the grade a regrade replaced, kept beside the new one
REPORT = "index.html"
GRADES = "grades.csv"
CLASS = "class.json"
ANALYSIS_SHEET = "analysis.csv"
ANALYSIS_FEEDBACK = "analysis-feedback.md"  # a student may be given it too (only analysis-sheet writes it)
INSTRUCTOR = "instructor.html"
STUDENT_FILES = ("results.json", "feedback.md", "feedback.html")  # what a student may be given


def submission_folder(out: Path, submission: str) -> Path:
    return Path(out) / SUBMISSIONS / submission


def link(submission: str, name: str = "feedback.html") -> str:
    """A file of a submission, relative to the class report."""
    return f"{SUBMISSIONS}/{quote(submission)}/{name}"


def report_link(depth: int = 2) -> str:
    """The class report, relative to a submission's feedback page."""
    return "../" * depth + REPORT
