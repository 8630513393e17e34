"""A class spanning the deadline graded end to end through the command line: a Gradescope export
(``tests/support/classes.py``: late, extended, resubmitted, group and not accepted submissions, with
``:created_at`` in the metadata) graded by ``grade --extensions``, then exported by ``export`` for
all three LMSs: one row per student with the policy and the late penalty applied everywhere."""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from tests.support import classes, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lms"

BUGGY_DCG = subs.with_function(
    "metrics.py",
    """
    import math
    def dcg_at_k(ranking, judgments, k, gain="linear"):
        grades = [max(judgments.get(d, 0), 0) for d in ranking[:k]]
        return sum((2 ** g - 1 if gain == "exp" else g) / math.log(i + 2) for i, g in enumerate(grades))
    """,
)
FILES = {  # submission -> its files beside the solutions (the others are the solutions)
    "submission_1001": {"runs.py": paths.handout_file("runs.py").read_text(encoding="utf-8")},
    "submission_1003": {"metrics.py": BUGGY_DCG},
    "submission_1030": {"metrics.py": BUGGY_DCG},
}
ENTRIES = {name: (score, students, created, False) for name, (score, students, created, _) in classes.CLASS.items()}


def _autograder(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, cranfield):
    folder = tmp_path_factory.mktemp("class")
    classes.export(folder / "export", ENTRIES, FILES)
    # grading.yml with short limits, without Cranfield's checks (what is proven here is the deadline,
    # the policy and the exports, not the grading of the collection), and the class's deadline
    rubric = subs.small_rubric(folder)
    rubric.write_text(rubric.read_text(encoding="utf-8") + "\n" + classes.DEADLINE, encoding="utf-8")
    (folder / "extensions.csv").write_text(classes.EXTENSIONS, encoding="utf-8")
    run = _autograder(
        "grade", str(folder / "export"), "--out", str(folder / "out"), "--jobs", "2", "--rubric",
        str(rubric), "--extensions", str(folder / "extensions.csv"),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = {row["name"].lstrip("'"): row for row in csv.DictReader((folder / "out" / "grades.csv").open())}
    return folder, rows, run


def test_one_row_per_student_with_the_latest_submission_and_its_penalty(graded):
    """Does grades.csv hold one row per student (a group's members each), the latest accepted
    submission of each (never the one after the last accepted time), and its grade less the penalty
    the rule gives (10% a started day, at most 25%), extension included?"""
    _, rows, _ = graded
    assert set(rows) == set(classes.SAME_UNDER_EVERY_POLICY) | {"Jane Doe", "Kim Lee"}
    penalties = {"Jane Doe": 10, "Kim Lee": 10, "Raj Patel": 25, '=HYPERLINK("http://x")': 10}
    for name, row in rows.items():
        chosen = {**classes.SAME_UNDER_EVERY_POLICY, **classes.EXPECTED["latest"]}[name][0]
        assert row["submission"] == chosen, name
        assert float(row["grade"]) == pytest.approx(max(0.0, float(row["total"]) - penalties.get(name, 0)), abs=0.01)
    assert float(rows["Jane Doe"]["total"]) < 100  # the buggy DCG: a penalty on a score of its own
    assert rows["Ada Lovelace"]["late"] == "on time (extended)"
    assert rows["Alan Turing"]["grade"] == rows["Grace Hopper"]["grade"]
    assert "submission_1041" in rows["Kim Lee"]["superseded"] and "not accepted" in rows["Kim Lee"]["superseded"]


def test_times_come_from_gradescope_metadata(graded):
    """Are the submission times Gradescope's created_at (in the course's timezone), with no warning
    about file times?"""
    _, rows, run = graded
    assert rows["Raj Patel"]["submitted"] == "2026-12-08T12:00:00-06:00"
    assert "modification time" not in run.stderr


@pytest.mark.parametrize("lms", classes.ROSTERS)
def test_every_export_gives_each_roster_student_their_grade(graded, lms, tmp_path):
    """Does `export` for each LMS write each roster student's grade from grades.csv (the policy's
    submission, less its penalty), an empty cell where there is none?"""
    folder, rows, _ = graded
    roster = classes.ROSTERS[lms]
    out = tmp_path / "import.csv"
    column = ["--column", "Lab 05"] if lms != "blackboard" else []
    run = _autograder(
        "export", "--lms", lms, "--roster", str(FIXTURES / roster), *column, "--out", str(out), str(folder / "out")
    )
    assert run.returncode == 0, run.stderr
    body = [row for row in csv.reader(io.StringIO(out.read_text(encoding="utf-8"))) if "Points Possible" not in row[0]]
    at = next(i for i, header in enumerate(body[0]) if "Lab 05" in header)  # the grade column, wherever it is
    cells = [row[at] for row in body[1:]]
    names = ["Jane Doe", None, "Grace Hopper", "Kim Lee", "Ada Lovelace", '=HYPERLINK("http://x")', "Raj Patel"]
    names += ["Tom Thumb", "Alan Turing"] + ([None] if lms == "canvas" else [])
    assert cells == [rows[name]["grade"] if name else "" for name in names]
    assert "not in the roster: submission_1070: Eve" in run.stderr


def test_the_report_and_feedback_say_who_and_how_late(graded):
    """Does the class report hold one row per student and name them in its lists, and does the late
    student's feedback say how late and the grade after the penalty?"""
    folder, rows, _ = graded
    report = (folder / "out" / "index.html").read_text(encoding="utf-8")
    start = report.index('id="students"')
    table = report[start : report.index("</table>", start)]
    assert table.count("<tr>") == 1 + len(rows)
    assert "Jane Doe (submission_1003)" in report  # her buggy DCG, named in a who list
    assert "Jane Doe (submission_1001)" not in report  # superseded: in no list
    feedback = (folder / "out" / "submissions" / "submission_1003" / "feedback.md").read_text(encoding="utf-8")
    assert "**Lateness:** late by 31 min" in feedback
    assert f"**Grade after the late penalty: {rows['Jane Doe']['grade']} / 100**" in feedback


def test_without_a_trusted_time_nothing_is_late_until_the_instructor_names_one(tmp_path, cranfield):
    """Graded without Gradescope's metadata, a deadline in the past and files unzipped after it, is no
    submission late and does the batch say how many had no trusted time (stderr, class report,
    class.json); then with --times FILE.csv, and with --times files, are the penalties from those?"""
    unzipped = datetime.datetime(2026, 12, 9, 3, 57, tzinfo=datetime.timezone.utc).timestamp()  # after the due date
    for name in ("early", "late"):
        folder = subs.write(tmp_path / "in" / name, {})
        for file in folder.iterdir():
            os.utime(file, (unzipped, unzipped))
    rubric = subs.small_rubric(tmp_path)  # the times are the claim, not Cranfield's checks
    rubric.write_text(rubric.read_text(encoding="utf-8") + "\n" + classes.DEADLINE, encoding="utf-8")
    out = tmp_path / "out"

    def grade(*times):
        run = _autograder("grade", str(tmp_path / "in"), "--out", str(out), "--rubric", str(rubric), *times)
        assert run.returncode == 0, run.stderr
        rows = {row["submission"]: row for row in csv.DictReader((out / "grades.csv").open())}
        return run, rows, json.loads((out / "class.json").read_text(encoding="utf-8"))

    run, rows, record = grade()
    assert "2 submission(s) had no trusted time" in run.stderr and "--times FILE.csv" in run.stderr
    assert record["no_trusted_time"] == 2
    assert "2 submission(s) had no trusted time" in (out / "index.html").read_text(encoding="utf-8")
    assert [(rows[name]["submitted"], rows[name]["penalty"]) for name in ("early", "late")] == [("", "0")] * 2
    (tmp_path / "times.csv").write_text("submission,time\nearly,2026-12-05 12:00\nlate,2026-12-06 06:00\n")
    run, rows, record = grade("--times", str(tmp_path / "times.csv"))  # the same files: regraded from the store
    assert "no trusted time" not in run.stderr and record["no_trusted_time"] == 0
    assert rows["early"]["submitted"] == "2026-12-05T12:00:00-06:00" and rows["early"]["late"] == "on time"
    assert rows["late"]["submitted"] == "2026-12-06T06:00:00-06:00" and rows["late"]["penalty"] == "10"
    run, rows, record = grade("--times", "files")
    assert "2 submission time(s) taken from the files' modification times" in run.stderr
    assert [rows[name]["penalty"] for name in ("early", "late")] == ["25", "25"]  # 3 days after: the cap
