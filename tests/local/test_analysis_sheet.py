"""The written analysis's grading sheet (``local/analysis_sheet.py``, ``python -m autograder
analysis-sheet``): a row per submission with its claims checked against the data, the TA's cells
kept when it is made again, read back with every mistake named (nothing applied then), and merged
into grades.csv beside the code's points, which never change."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.errors import InputError
from autograder.grading import intake, rubric
from autograder.grading.analysis import facts
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.results import Student, SubmissionResult
from autograder.labkit.load import default as default_lab
from autograder.local import analysis_sheet
from autograder.reports import analysis_grades, grades_csv, output_paths

POINTS = AnalysisPoints(claims=2, claim_points=2.0, prose_points=4.0)


@pytest.fixture(scope="module")
def known(cranfield):
    return facts.Facts.from_bundle(cranfield)


def claim(known: facts.Facts, query: str, doc: str, **wrong) -> dict:
    """The data's claim of ``query``'s AP with ``doc``, with the facts in ``wrong`` replaced."""
    systems = known.names().systems
    document = {
        "doc": doc,
        "grade": known.qrels[query].get(doc, 0),
        "ranks": {s: known.rank(s, query, doc) for s in systems},
    }
    made = {
        "query": query,
        "measure": "AP",
        "values": {s: round(known.values[s]["AP"][query], 4) for s in systems},
        "better": known.better("AP", query),
        "documents": [document],
    }
    made.update({key: value for key, value in wrong.items() if key in made})
    document.update({key: value for key, value in wrong.items() if key in document})
    return made


def submissions(tmp_path: Path, known: facts.Facts) -> Path:
    """A class: two true claims (a folder), one true and one wrong (a zip), a malformed file, none."""
    root = tmp_path / "class"
    files = {
        "ada": yaml.safe_dump(
            {"claims": [claim(known, "1", "184"), claim(known, "2", known.rankings["tfidf"]["2"][0])]}
        ),
        "bob": yaml.safe_dump({"claims": [claim(known, "1", "184"), claim(known, "1", "184", grade=4)]}),
        "carol": "claims:\n  - query: 1\n    measure: MAP\n",
        "dan": None,
    }
    for name, text in files.items():
        folder = root / name / "lab05"
        folder.mkdir(parents=True)
        for graded in ("metrics.py", "runs.py"):
            (folder / graded).write_text("# work\n", encoding="utf-8")
        if text is not None:
            (root / name / "analysis.yml").write_text(text, encoding="utf-8")
    bob = root / "bob"
    with zipfile.ZipFile(root / "bob.zip", "w") as archive:
        for path in sorted(bob.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(bob).as_posix())
    for path in sorted(bob.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    bob.rmdir()
    return root


def sheet_rows(path: Path) -> dict[str, dict[str, str]]:
    return {row["submission"]: row for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}


def test_sheet_has_each_submission_with_its_claims_checked(known, tmp_path):
    """Does the sheet give each submission its claims' points and why: both true (4), one wrong
    (2, naming the fact), malformed (0, its line), none (0)?"""
    root = submissions(tmp_path, known)
    path = analysis_sheet.write(tmp_path / "out", intake.discover([root], default_lab()), known, POINTS, default_lab())
    rows = sheet_rows(path)
    assert list(rows) == ["ada", "bob", "carol", "dan"]
    assert {name: rows[name]["claims_points"] for name in rows} == {"ada": "4", "bob": "2", "carol": "0", "dan": "0"}
    assert (
        "claim 2 (line 14: query 1, AP): document 184 has grade 2 for query 1; the claim says 4"
        in rows["bob"]["claims_feedback"]
    )
    assert rows["carol"]["claims_feedback"].startswith("analysis.yml, line 3: claims[0].measure: 'MAP'")
    assert rows["dan"]["claims_feedback"] == "no analysis.yml read: the submission has none"
    assert {rows[name]["prose_points"] for name in rows} == {""} and rows["ada"]["prose_max"] == "4"
    told = (tmp_path / "out" / "submissions" / "bob" / output_paths.ANALYSIS_FEEDBACK).read_text()
    assert told.startswith("# Your written analysis: its claims checked against the data\n\n**Claims: 2 / 4**")
    assert "- claim 2 \\(line 14: query 1, AP\\): document 184 has grade 2 for query 1; the claim says 4" in told


def test_made_again_the_sheet_keeps_what_the_ta_wrote(known, tmp_path):
    """Does a sheet made again (a regrade) keep the TA's prose points, comment and grader?"""
    root = submissions(tmp_path, known)
    sources, out = intake.discover([root], default_lab()), tmp_path / "out"
    path = analysis_sheet.write(out, sources, known, POINTS, default_lab())
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    header = rows[0]
    rows[1][header.index("prose_points")], rows[1][header.index("comment")], rows[1][header.index("grader")] = (
        "3.5",
        "clear",
        "TA Lin",
    )
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    analysis_sheet.write(out, sources, known, POINTS, default_lab())
    again = sheet_rows(path)["ada"]
    assert (again["prose_points"], again["comment"], again["grader"], again["claims_points"]) == (
        "3.5",
        "clear",
        "TA Lin",
        "4",
    )


HEADER = ",".join(analysis_grades.COLUMNS) + "\n"

#: id: (the sheet's rows after the header, the words of the error)
BAD_SHEETS = {
    "unknown-submission": (
        "zed,,,,4,4,,2,4,,\n",
        ["line 2", "submission 'zed' is not one of the batch's 2 submissions"],
    ),
    "prose-over-max": ("ada,,,,4,4,,5,4,,\n", ["line 2", "prose_points '5' is not a number of points from 0 to 4"]),
    "prose-as-text": ("ada,,,,4,4,,good,4,,\n", ["line 2", "prose_points 'good'"]),
    "claims-negative": ("ada,,,,-1,4,,2,4,,\n", ["line 2", "claims_points '-1'"]),
    "row-twice": ("ada,,,,4,4,,2,4,,\nada,,,,4,4,,3,4,,\n", ["line 3", "submission ada has a row already"]),
    "no-prose-column": (None, ["no column prose_points"]),
}


@pytest.mark.parametrize(("rows", "words"), BAD_SHEETS.values(), ids=BAD_SHEETS.keys())
def test_a_bad_sheet_is_named_and_nothing_applied(tmp_path, rows, words):
    """Is every mistake of a TA's sheet an error naming its line and cell, with nothing applied?"""
    path = tmp_path / "analysis.csv"
    path.write_text("submission,comment,grader\nada,,\n" if rows is None else HEADER + rows, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        analysis_grades.read(path, ["ada", "bob"], POINTS)
    for word in words:
        assert word in str(raised.value), raised.value


def results() -> list[SubmissionResult]:
    return [SubmissionResult.failed(name, ("x",), students=(Student(name=name.title()),)) for name in ("ada", "bob")]


def test_grades_csv_gets_the_analysis_columns_only_with_a_sheet(tmp_path):
    """Is grades.csv unchanged without a sheet, and with one does it gain the analysis's columns (claims,
    prose, their sum, the maximum; empty where the sheet has no row or no prose yet), the code's total
    and grade unchanged?"""
    graded = rubric.load(paths.RUBRIC, default_lab())
    plain = grades_csv.render(results(), graded)
    sheet = {"ada": (4.0, 3.5), "bob": (2.0, None)}
    merged = grades_csv.render(results(), graded, sheet)
    plain_rows = list(csv.DictReader(io.StringIO(plain)))
    merged_rows = list(csv.DictReader(io.StringIO(merged)))
    assert "analysis" not in plain_rows[0]
    for before, after in zip(plain_rows, merged_rows):
        assert {key: after[key] for key in before} == before
    assert [(r["analysis_claims"], r["analysis_prose"], r["analysis"], r["analysis_max"]) for r in merged_rows] == [
        ("4", "3.5", "7.5", "8"),
        ("2", "", "2", "8"),
    ]
    missing = list(csv.DictReader(io.StringIO(grades_csv.render(results(), graded, {"ada": (4.0, 3.5)}))))
    assert [row["analysis"] for row in missing] == ["7.5", ""]


def test_classwork_merges_the_sheet_found_in_out(tmp_path):
    """Does the class step read OUT/analysis.csv when there is one, and refuse a sheet naming a
    submission the batch lacks?"""
    out = tmp_path / "out"
    out.mkdir()
    assert analysis_grades.merged(out, ["ada", "bob"], POINTS) is None
    (out / output_paths.ANALYSIS_SHEET).write_text(HEADER + "ada,,,,4,4,,3,4,ok,TA\n", encoding="utf-8")
    assert analysis_grades.merged(out, ["ada", "bob"], None) is None
    entry = analysis_grades.merged(out, ["ada", "bob"], POINTS)["ada"]
    assert (entry.claims_points, entry.prose_points, entry.total, entry.grader) == (4.0, 3.0, 7.0, "TA")
    with pytest.raises(InputError, match="'ada' is not one of the batch's 1 submissions"):
        analysis_grades.merged(out, ["bob"], POINTS)


def test_command_writes_the_sheet(known, tmp_path):
    """Does `python -m autograder analysis-sheet PATH --out OUT` write OUT/analysis.csv and say what to do next?"""
    root = submissions(tmp_path, known)
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "analysis-sheet", str(root), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert f"grading sheet: {out / 'analysis.csv'} (4 submissions" in result.stdout
    assert sheet_rows(out / "analysis.csv")["ada"]["claims_points"] == "4"


def test_class_step_puts_the_sheet_in_grades_csv_and_the_report(tmp_path):
    """Does the class step, with a sheet in OUT, give grades.csv the analysis's columns and the class
    report a Written analysis section (who is graded, the means, who waits), and without one neither?"""
    from autograder.grading.course import standing
    from autograder.local import classwork
    from tests.support import classes

    made = [
        classes.result(name, score, [(name.title(), f"{name}@example.edu", "")], "", False)
        for name, score in (("ada", 90), ("bob", 60), ("cy", 75))
    ]
    out = tmp_path / "out"
    classwork.finish(
        out, made, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    plain_csv, plain_report = (out / "grades.csv").read_text(), (out / "index.html").read_text()
    assert "analysis" not in plain_csv.splitlines()[0] and "Written analysis" not in plain_report
    (out / output_paths.ANALYSIS_SHEET).write_text(HEADER + "ada,,,,4,4,,3,4,,TA\nbob,,,,2,4,,,4,,\n", encoding="utf-8")
    classwork.finish(
        out, made, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    rows = {row["submission"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert [(rows[s]["total"], rows[s]["analysis"]) for s in ("ada", "bob", "cy")] == [
        ("90", "7"),
        ("60", "2"),
        ("75", ""),
    ]
    report = (out / "index.html").read_text()
    for text in (
        '<h2 id="analysis">Written analysis</h2>',
        '<td>students with a row in the grading sheet</td><td class="num">2 of 3</td>',
        '<td>prose graded</td><td class="num">1 of 2</td>',
        '<td>mean claims points</td><td class="num">3.00 / 4</td>',
        '<td>mean analysis points (prose graded)</td><td class="num">7.00 / 8</td>',
        "Not graded yet: 2",
        "<li>Bob (bob): prose not graded yet</li>",
        "<li>Cy (cy): no row in the grading sheet</li>",
    ):
        assert text in report, text


#: the batch's students by submission: Ada (two submissions), Bob, two students named Lee, a group
STUDENTS = {
    "ada-1": (Student(name="Ada Lovelace", email="ada@example.edu", sid="S01"),),
    "ada-2": (Student(name="Ada Lovelace", email="ada@example.edu", sid="S01"),),
    "bob": (Student(name="Bob Byte", email="bob@example.edu", sid="S02"),),
    "lee-a": (Student(name="Lee", email="lee.a@example.edu", sid="S03"),),
    "lee-b": (Student(name="Lee", email="lee.b@example.edu", sid="S04"),),
    "pair": (Student(name="Cy", sid="S05"), Student(name="Di", sid="S06")),
}

#: id: (the row's submission, name, email, sid cells; the submission it is about)
BY_STUDENT = {
    "by-sid": (("", "", "", "S02"), "bob"),
    "by-sid-any-case": (("", "", "", "s02"), "bob"),
    "by-email": (("", "", "BOB@example.edu", ""), "bob"),
    "by-name": (("", "Bob Byte", "", ""), "bob"),
    "sid-before-name": (("", "Lee", "", "S04"), "lee-b"),
    "one-of-a-group": (("", "", "", "S06"), "pair"),
    "a-group-as-written": (("", "Cy; Di", "", "S05; S06"), "pair"),
    "submission-first": (("ada-2", "", "", "S02"), "ada-2"),
}


def one_row(cells: tuple[str, str, str, str]) -> str:
    return ",".join(cells) + ",4,4,,3,4,ok,TA Lin\n"


@pytest.mark.parametrize(("cells", "submission"), BY_STUDENT.values(), ids=BY_STUDENT.keys())
def test_a_row_keyed_by_student_grades_their_submission(tmp_path, cells, submission):
    """Is a row without its submission matched to the one submission of the student its sid, email or
    name names (the roster's words), in that order?"""
    path = tmp_path / "analysis.csv"
    path.write_text(HEADER + one_row(cells), encoding="utf-8")
    entries = analysis_grades.read(path, list(STUDENTS), POINTS, STUDENTS)
    assert [(name, entry.prose_points, entry.grader) for name, entry in entries.items()] == [
        (submission, 3.0, "TA Lin")
    ]


#: id: (the row's submission, name, email, sid cells; the words of the error)
BAD_STUDENTS = {
    "no-one": (("", "", "", "S99"), ["line 2: sid 'S99' is no student of the batch's 6 submissions"]),
    "two-people": (("", "Lee", "", ""), ["line 2: name 'Lee' names 2 students: Lee (lee-a); Lee (lee-b)"]),
    "two-submissions": (("", "", "", "S01"), ["line 2: sid 'S01' has 2 submissions (ada-1, ada-2)"]),
    "nobody-named": (("", "", "", ""), ["line 2: the row names no submission and no student"]),
}


@pytest.mark.parametrize(("cells", "words"), BAD_STUDENTS.values(), ids=BAD_STUDENTS.keys())
def test_a_row_matching_no_one_or_two_is_named_and_nothing_applied(tmp_path, cells, words):
    """Is a row whose student is no one, two people, or has two submissions an error naming its line
    and cell, with nothing of the sheet applied?"""
    path = tmp_path / "analysis.csv"
    path.write_text(HEADER + one_row(("bob", "", "", "")) + one_row(cells), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        analysis_grades.read(path, list(STUDENTS), POINTS, STUDENTS)
    for word in [word.replace("line 2", "line 3") for word in words]:
        assert word in str(raised.value), raised.value
    assert "nothing of the sheet was applied" in str(raised.value)


def test_a_student_row_and_a_submission_row_of_one_submission_are_refused(tmp_path):
    """Are two rows about one submission, one by its id and one by its student, refused as a row given twice?"""
    path = tmp_path / "analysis.csv"
    path.write_text(HEADER + one_row(("bob", "", "", "")) + one_row(("", "", "", "S02")), encoding="utf-8")
    with pytest.raises(InputError, match="line 3: submission bob has a row already"):
        analysis_grades.read(path, list(STUDENTS), POINTS, STUDENTS)


def test_class_step_and_remade_sheet_take_rows_keyed_by_student(known, tmp_path):
    """Does the class step put a row keyed by a student's email into grades.csv, and does the sheet made
    again keep that TA's cells on the student's submission row?"""
    from autograder.grading.course import standing
    from autograder.local import classwork
    from tests.support import classes

    made = [
        classes.result(name, score, [(name.title(), f"{name}@example.edu", "")], "", False)
        for name, score in (("ada", 90), ("bob", 60))
    ]
    out = tmp_path / "out"
    out.mkdir()
    (out / output_paths.ANALYSIS_SHEET).write_text(HEADER + one_row(("", "", "bob@example.edu", "")), encoding="utf-8")
    classwork.finish(
        out, made, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    rows = {row["submission"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert [(rows[s]["total"], rows[s]["analysis"]) for s in ("ada", "bob")] == [("90", ""), ("60", "7")]
    sources = [
        intake.Source(
            id=name, path=tmp_path / name, students=(Student(name=name.title(), email=f"{name}@example.edu"),)
        )
        for name in ("ada", "bob")
    ]
    analysis_sheet.write(out, sources, known, POINTS, default_lab())
    again = sheet_rows(out / output_paths.ANALYSIS_SHEET)
    assert [(again[s]["prose_points"], again[s]["grader"]) for s in ("ada", "bob")] == [("", ""), ("3", "TA Lin")]
