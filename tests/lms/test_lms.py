"""LMS exports: a graded batch into Canvas', Moodle's and Blackboard's gradebook imports, keyed by
each LMS's own export (the sample rosters in tests/fixtures/lms/, shaped as the LMSs write them).

The batch is built without the sandbox: results constructed here, through the class step
``grade`` ends with (``local/classwork.py: finish``: grade.json, grades.csv, class.json). Its
students, and what each case proves:

- Jane Doe: matched by email; Raj Patel: by SID alone (his Gradescope email is not the LMS's);
- Alan Turing and Grace Hopper: one group submission, both get its grade;
- Ada Lovelace: two submissions (60, then 90), the latest (the default policy) is taken and the
  other named (``test_class.py`` tries every policy and the late penalties);
- Kim Lee: a submission folder named by her SID, without Gradescope's metadata;
- Tom Thumb: the grader failed on his submission: an empty cell, not a 0;
- Maria Garcia: in the roster, no submission: an empty cell;
- Eve: a submission nobody in the roster matches: listed on stderr;
- Mallory: a formula-like name in the roster (and the batch): escaped.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.grading.course import standing
from autograder.grading.results import CheckResult, Student, SubmissionResult, points
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.lms import export, registry, tables
from autograder.local import batch as batches
from autograder.local import classwork
from autograder.reports import grades_csv, untrusted
from tests.support import classes, subs

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lms"

#: submission id -> (score out of 100, students as (name, email, sid), grader failed)
BATCH = {
    "submission_1001": (87.5, [("Jane Doe", "jdoe@example.edu", "S1001")], False),
    "submission_1002": (64, [("Raj Patel", "raj.patel.99@gmail.com", "S1002")], False),
    "submission_1003": (92, [("Alan Turing", "aturing@example.edu", "S1003"), ("Grace Hopper", "", "S1004")], False),
    "submission_1004": (60, [("Ada Lovelace", "alovelace@example.edu", "S1005")], False),
    "submission_1005": (90, [("Ada Lovelace", "ALovelace@example.edu ", "S1005")], False),
    "submission_1006": (100, [("Eve", "eve@elsewhere.org", "X9999")], False),
    "submission_1007": (55, [('=HYPERLINK("http://x")', "mallory@example.edu", "S1006")], False),
    "submission_1008": (0, [("Tom Thumb", "tthumb@example.edu", "S1009")], True),
    "S1008": (70, [], False),
}


def _result(submission: str, score: float, students, failed: bool) -> SubmissionResult:
    return classes.result(submission, score, students, "", failed)


def write_batch(folder: Path, batch: dict = BATCH) -> Path:
    results = [_result(name, *entry) for name, entry in sorted(batch.items())]
    classwork.finish(
        folder,
        results,
        rubrics.load(default_lab().place.rubric, default_lab()),
        standing.Rules(),
        classes.RUN,
        lab=default_lab(),
    )
    return folder


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    return write_batch(tmp_path_factory.mktemp("lms") / "out")


def _rows(text: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


# ---------------------------------------------------------------- every row of every LMS's import

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 05: Evaluating IR Systems (12345)"]
CANVAS_ROWS = [
    ["    Points Possible", "", "", "", "", "100"],
    ["Doe, Jane", "4821", "S1001", "jdoe@example.edu", "IR-2025 Lab A", "87.5"],
    ["Garcia, Maria", "4822", "S1007", "mgarcia@example.edu", "IR-2025 Lab B", ""],
    ["Hopper, Grace", "4823", "S1004", "ghopper@example.edu", "IR-2025 Lab A", "92"],
    ["Lee, Kim", "4824", "S1008", "klee@example.edu", "IR-2025 Lab B", "70"],
    ["Lovelace, Ada", "4825", "S1005", "alovelace@example.edu", "IR-2025 Lab A", "90"],
    ["'=SUM(A1:A9), Mallory", "4826", "S1006", "mallory@example.edu", "IR-2025 Lab B", "55"],
    ["Patel, Raj", "4827", "S1002", "rpatel", "IR-2025 Lab A", "64"],
    ["Thumb, Tom", "4828", "S1009", "tthumb@example.edu", "IR-2025 Lab B", ""],
    ["Turing, Alan", "4829", "S1003", "aturing@example.edu", "IR-2025 Lab A", "92"],
    ["Student, Test", "4830", "", "", "IR-2025 Lab A", ""],
]
MOODLE_HEADER = ["Email address", "Assignment: Lab 05 Evaluating IR Systems (Real)"]
MOODLE_ROWS = [
    ["jdoe@example.edu", "87.5"],
    ["mgarcia@example.edu", ""],
    ["ghopper@example.edu", "92"],
    ["klee@example.edu", "70"],
    ["alovelace@example.edu", "90"],
    ["'+mallory@example.edu", "55"],
    ["rpatel@example.edu", "64"],
    ["tthumb@example.edu", ""],
    ["aturing@example.edu", "92"],
]
BLACKBOARD_HEADER = ["Last Name", "First Name", "Username", "Lab 05 [Total Pts: 100 Score] |3400062"]
BLACKBOARD_ROWS = [
    ["Doe", "Jane", "jdoe", "87.5"],
    ["Garcia", "Maria", "mgarcia", ""],
    ["Hopper", "Grace", "ghopper", "92"],
    ["Lee", "Kim", "klee", "70"],
    ["Lovelace", "Ada", "alovelace", "90"],
    ["'=SUM(A1:A9)", "Mallory", "mallory", "55"],
    ["Patel", "Raj", "rpatel", "64"],
    ["Thumb", "Tom", "tthumb", ""],
    ["Turing", "Alan", "aturing", "92"],
]

IMPORTS = {
    # id: (lms, roster, --column, out suffix, delimiter, header, rows)
    "canvas": ("canvas", "canvas.csv", "Lab 05", ".csv", ",", CANVAS_HEADER, CANVAS_ROWS),
    "canvas-semicolon-bom-crlf": (
        "canvas",
        "canvas-semicolon.csv",
        None,
        ".csv",
        ",",
        CANVAS_HEADER,
        CANVAS_ROWS,
    ),
    "moodle": ("moodle", "moodle.csv", "lab 05", ".csv", ",", MOODLE_HEADER, MOODLE_ROWS),
    "blackboard-utf16-tab": ("blackboard", "blackboard.xls", None, ".xls", "\t", BLACKBOARD_HEADER, BLACKBOARD_ROWS),
    "blackboard-as-csv": ("blackboard", "blackboard.xls", None, ".csv", ",", BLACKBOARD_HEADER, BLACKBOARD_ROWS),
}


@pytest.mark.parametrize("case", IMPORTS.values(), ids=IMPORTS.keys())
def test_import_has_the_lms_header_and_every_roster_row(case, batch):
    """Does each LMS's import carry its key columns and the grade column, then every roster
    student in roster order with the right grade (by email, by SID, by folder name, a group's
    members each, the best of two) or an empty cell (no submission, grader failure), with
    formula-like cells escaped?"""
    lms, roster, column, suffix, delimiter, header, rows = case
    result = export.build(lms, FIXTURES / roster, batch, column, suffix)
    assert _rows(result.text, delimiter) == [header, *rows]


def test_blackboard_csv_upload_quotes_every_field(batch):
    """Is Blackboard's comma-delimited upload written with every field in quotes, as it requires?"""
    text = export.build("blackboard", FIXTURES / "blackboard.xls", batch, None, ".csv").text
    assert text.splitlines()[1] == '"Doe","Jane","jdoe","87.5"'


def test_import_is_utf8_with_windows_line_ends(batch):
    """Is the import UTF-8 without a byte-order mark, each line ended by CRLF?"""
    text = export.build("moodle", FIXTURES / "moodle.csv", batch, "Lab 05").text
    assert (
        not text.startswith("\ufeff")
        and text.count("\r\n") == len(MOODLE_ROWS) + 1
        and "\n" not in text.replace("\r\n", "")
    )


# ---------------------------------------------------------------- what the instructor is told

MESSAGES = {
    # id: (a message that must be among the export's messages, as a substring)
    "unmatched submission": "not in the roster: submission_1006: Eve <eve@elsewhere.org> SID X9999: no roster row",
    "duplicate, the latest taken": "took submission_1005 (90), the latest (grading.yml students.policy: latest); "
    "not submission_1004 (60)",
    "grader failure left empty": "grader failure: Thumb, Tom (row 10): submission_1008 was not graded",
    "roster students without submission": "no submission: 2 roster student(s) left empty: Garcia, Maria (row 4), "
    "Student, Test (row 12)",
}


@pytest.mark.parametrize("expected", MESSAGES.values(), ids=MESSAGES.keys())
def test_choices_and_leftovers_are_said(expected, batch):
    """Does the Canvas export name the unmatched submission with its reason, the duplicate it chose,
    the grader failure and the roster students left empty?"""
    result = export.build("canvas", FIXTURES / "canvas.csv", batch, "Lab 05")
    assert any(expected in message for message in result.messages), result.messages


def test_summary_counts_graded_empty_and_unmatched(batch):
    """Does the summary say how many roster students got a grade, how many are empty, and how
    many submissions matched nobody?"""
    summary = export.build("canvas", FIXTURES / "canvas.csv", batch, "Lab 05").summary
    assert "7 of 10 roster students graded, 3 left empty; 9 students in 9 submissions (" in summary
    assert "1 matching nobody in the roster" in summary


def test_escaped_identifier_is_flagged(batch):
    """When an identifying cell had to be escaped (Moodle's email '+mallory@...'), is the instructor
    told the LMS may not match that row?"""
    messages = export.build("moodle", FIXTURES / "moodle.csv", batch, "Lab 05").messages
    assert [m for m in messages if m.startswith("escaped:")] == [
        "escaped: Mallory =SUM(A1:A9) (row 7): its 'Email address' '+mallory@example.edu' starts like a "
        'spreadsheet formula and is written as "\'+mallory@example.edu"; its grade 55 may not be matched at '
        "import: check that row by hand"
    ]


def test_points_mismatch_is_said(batch):
    """Filling a Canvas column worth 50 points with grades out of 100: is the instructor warned?"""
    messages = export.build("canvas", FIXTURES / "canvas.csv", batch, "Lab 04").messages
    assert any(m.startswith("points: 'Lab 04: Retrieval (12344)' is worth 50 points") for m in messages)


# ---------------------------------------------------------------- Canvas' points row: by place and content

PAT = ["4831", "S1010", "pat@example.edu", "IR-2025 Lab A"]
CANVAS_POINTS = {
    # id: (how the roster's text is changed, Pat's Student cell, the points row the import starts with)
    "name-holds-the-words": (
        lambda text: text + '"Possible, Pat (Points Possible)",4831,S1010,pat@example.edu,IR-2025 Lab A,,,,,,,\n',
        "Possible, Pat (Points Possible)",
        ["    Points Possible", "", "", "", "", "100"],
    ),
    "named-exactly-points-possible": (
        lambda text: text + "    Points Possible,4831,S1010,pat@example.edu,IR-2025 Lab A,,,,,,,\n",
        "    Points Possible",
        ["    Points Possible", "", "", "", "", "100"],
    ),
    "first-row-is-a-student-named-so": (
        lambda text: text.replace(
            "    Points Possible,,,,,50.00,100.00,", "    Points Possible,4831,S1010,pat@example.edu,IR-2025 Lab A,,,"
        ),
        "    Points Possible",
        None,
    ),
}


@pytest.mark.parametrize("case", CANVAS_POINTS.values(), ids=CANVAS_POINTS.keys())
def test_canvas_points_row_is_found_by_place_and_content(case, tmp_path):
    """A student whose Student cell holds or is "Points Possible", below the points row or in its
    place (with an ID): is that student a roster row of the import with their grade (and the
    instructor warned that Canvas's own import may take that row for its points row), and is the
    real points row (right after the header, no ID) read as points?"""
    change, name, points_row = case
    roster = tmp_path / "canvas.csv"
    roster.write_text(change((FIXTURES / "canvas.csv").read_text(encoding="utf-8")), encoding="utf-8")
    out = write_batch(tmp_path / "out", {"submission_1": (80, [("Pat Possible", "pat@example.edu", "S1010")], False)})
    result = export.build("canvas", roster, out, "Lab 05")
    rows = _rows(result.text)
    assert [name, *PAT, "80"] in rows
    assert (rows[1] if rows[1][0].strip() == "Points Possible" and rows[1][1] == "" else None) == points_row
    assert not any(message.startswith("not in the roster") for message in result.messages), result.messages
    assert [m for m in result.messages if m.startswith("'Points Possible' in a name")] == [
        f"'Points Possible' in a name: {name.strip()} (row {rows.index([name, *PAT, '80']) + 1}): Canvas's gradebook "
        "import takes any row whose first cell holds 'Points Possible' for its points row, not a student: check this "
        "student's grade in Canvas after the import"
    ]


def test_ambiguous_student_gets_no_grade(tmp_path):
    """A student whose email is one roster row's and whose SID another's: is no grade given, and said?"""
    out = write_batch(tmp_path / "out", {"submission_1": (80, [("Jane Doe", "jdoe@example.edu", "S1002")], False)})
    result = export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05")
    assert [row[-1] for row in _rows(result.text)[2:]] == [""] * 10
    assert any(m.startswith("ambiguous: submission_1: Jane Doe") and "row 3 (Doe, Jane)" in m for m in result.messages)


def test_stale_results_left_by_an_earlier_batch_are_ignored_and_said(tmp_path):
    """A grade.json that class.json does not list (an earlier batch into the same folder): is it
    left out, with a note?"""
    out = write_batch(tmp_path / "out", {"submission_1": (80, [("Jane Doe", "jdoe@example.edu", "S1001")], False)})
    write_batch(tmp_path / "old", {"submission_9": (10, [("Raj Patel", "", "S1002")], False)})
    (tmp_path / "old" / "submissions" / "submission_9").rename(out / "submissions" / "submission_9")
    result = export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05")
    assert [row[-1] for row in _rows(result.text)[2:]][:7] == ["80", "", "", "", "", "", ""]
    assert any("submission_9" in m and "not in class.json" in m for m in result.messages)


# ---------------------------------------------------------------- real-world files

VARIANTS = {
    # id: (encoding, line end)
    "utf8": ("utf-8", "\n"),
    "utf8-bom-crlf": ("utf-8-sig", "\r\n"),
    "utf16-bom-crlf": ("utf-16", "\r\n"),
}


def test_every_lms_has_a_sample_roster():
    """Does every LMS of the registry have one sample roster (``<lms>.<suffix>``; ``<lms>-<variant>``
    for more), and no roster name an LMS the registry lacks, so that the tests of every LMS try it?"""
    stems = [path.stem for path in FIXTURES.glob("[!.]*") if "-" not in path.stem]
    assert sorted(stems) == sorted(set(stems)), "two sample rosters of one LMS: name the other <lms>-<variant>"
    assert sorted(classes.ROSTERS) == sorted(export.FORMATS) == sorted(registry.MODULES)
    assert all(path.stem.split("-")[0] in registry.MODULES for path in FIXTURES.glob("[!.]*"))
    assert all((FIXTURES / name).is_file() for name in classes.ROSTERS.values())


@pytest.mark.parametrize("lms", classes.ROSTERS)
@pytest.mark.parametrize("variant", VARIANTS.values(), ids=VARIANTS.keys())
def test_any_encoding_and_line_end_gives_the_same_import(lms, variant, batch, tmp_path):
    """Is the same roster saved as UTF-8, UTF-8 with BOM and CRLF, or UTF-16, read to the same import?"""
    name = classes.ROSTERS[lms]
    encoding, end = variant
    text, _ = tables.decode((FIXTURES / name).read_bytes(), name)
    copy = tmp_path / name
    copy.write_bytes(end.join(text.splitlines()).encode(encoding) + end.encode(encoding))
    column = "Lab 05" if lms != "blackboard" else None
    assert export.build(lms, copy, batch, column).text == export.build(lms, FIXTURES / name, batch, column).text


# ---------------------------------------------------------------- clear errors

ERRORS = {
    # id: (lms, roster file or bytes, column, what the message must say)
    "moodle roster as canvas": ("canvas", "moodle.csv", None, "is not a Canvas gradebook export: it has no 'Section'"),
    "canvas roster as moodle": (
        "moodle",
        "canvas.csv",
        None,
        "is not a Moodle gradebook export: it has no 'Email address' or 'ID number' or 'Username' column",
    ),
    "canvas roster as blackboard": ("blackboard", "canvas.csv", None, "it has no 'Username' column"),
    "workbook": ("canvas", b"PK\x03\x04rest of a zip", None, "is a spreadsheet workbook"),
    "latin-1": ("moodle", "Email address,Note\nj\xe9@example.edu,1\n".encode("latin-1"), None, "is not UTF-8 text"),
    "empty": ("canvas", b"\xef\xbb\xbf\r\n", None, "is empty"),
    "no students": ("blackboard", b"Last Name\tFirst Name\tUsername\tLab [Total Pts: 10] |1\n", None, "no students"),
    "several columns, none chosen": ("canvas", "canvas.csv", None, "has 2 grade columns: choose one with --column"),
    "column not in roster": ("canvas", "canvas.csv", "Lab 06", "no grade column 'Lab 06' in canvas.csv"),
    "column ambiguous": ("canvas", "canvas.csv", "Lab 0", "--column 'Lab 0' matches 2 columns"),
    "calculated column": ("blackboard", "blackboard.xls", "Total", "no grade column 'Total'"),
}


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_wrong_roster_or_column_is_a_clear_error(case, batch, tmp_path):
    """Does a roster that is not the LMS's export (or a column that is not in it) stop the export
    with a ValueError that says what is missing and where the right file comes from?"""
    lms, roster, column, expected = case
    if isinstance(roster, bytes):
        (tmp_path / "roster.csv").write_bytes(roster)
        roster = tmp_path / "roster.csv"
    with pytest.raises(ValueError) as error:
        export.build(lms, FIXTURES / roster, batch, column)
    assert expected in str(error.value)


def test_roster_error_says_where_the_export_comes_from(batch):
    """Does the wrong-roster message tell the instructor how to download the right one?"""
    with pytest.raises(ValueError, match="Grades > Export > Export Entire Gradebook"):
        export.build("canvas", FIXTURES / "moodle.csv", batch)


def _not_a_batch(folder: Path) -> Path:
    return folder / "nothing-here"


def _empty(folder: Path) -> Path:
    (folder / "out").mkdir()
    return folder / "out"


def _unfinished(folder: Path) -> Path:
    out = write_batch(folder / "out", {"submission_1": (80, [], False)})
    (out / "class.json").unlink()
    return out


def _lost_result(folder: Path) -> Path:
    out = write_batch(folder / "out", {"submission_1": (80, [], False), "submission_2": (70, [], False)})
    (out / "submissions" / "submission_2" / "grade.json").unlink()
    return out


def _corrupt_result(folder: Path) -> Path:
    out = write_batch(folder / "out", {"submission_1": (80, [], False)})
    (out / "submissions" / "submission_1" / "grade.json").write_text('{"submission": "submission_1"', encoding="utf-8")
    return out


BATCH_ERRORS = {
    "missing folder": (_not_a_batch, "no graded batch at"),
    "no grade.json": (_empty, "is not a graded batch (no submissions/<submission>/grade.json in it)"),
    "no class.json": (_unfinished, "no class.json: the batch did not finish"),
    "a listed result lost": (_lost_result, "lists 1 submission(s) without a grade.json (submission_2)"),
    "a corrupt result": (_corrupt_result, "grade.json cannot be read (JSONDecodeError"),
}


@pytest.mark.parametrize("case", BATCH_ERRORS.values(), ids=BATCH_ERRORS.keys())
def test_a_folder_that_is_not_a_graded_batch_is_a_clear_error(case, tmp_path):
    """Is a DIR that is not a finished graded batch refused with a message saying what to run?"""
    make, expected = case
    with pytest.raises((ValueError, FileNotFoundError)) as error:
        export.build("canvas", FIXTURES / "canvas.csv", make(tmp_path), "Lab 05")
    assert expected in str(error.value) and "python -m autograder grade" in str(error.value)


# ---------------------------------------------------------------- formula injection, everywhere

CELLS = {
    # id: (cell, as written)
    "equals": ("=1+2", "'=1+2"),
    "plus": ("+1", "'+1"),
    "minus": ("-2+3", "'-2+3"),
    "at": ("@SUM(A1)", "'@SUM(A1)"),
    "tab": ("\t=1", "'\t=1"),
    "carriage return": ("\r=1", "'\\r=1"),
    "line break inside": ("Jane\nScore: 100", "Jane\\nScore: 100"),
    "tab inside": ("a\tb", "a\tb"),
    "full-width equals": ("\uff1d1+2", "'\uff1d1+2"),
    "plain name": ("Doe, Jane", "Doe, Jane"),
    "inner equals": ("a=b", "a=b"),
    "number": ("87.5", "87.5"),
    "empty": ("", ""),
}


@pytest.mark.parametrize("case", CELLS.values(), ids=CELLS.keys())
def test_formula_like_cells_are_escaped(case):
    """Does a cell starting like a spreadsheet formula get a leading apostrophe, and no other, and
    a line break inside a cell show as an escape (one line per row)?"""
    cell, written = case
    assert untrusted.csv_cell(cell) == written


def test_grades_csv_escapes_names_emails_and_sids(tmp_path):
    """Does grades.csv write a student's formula-like name, email and SID escaped?"""
    result = _result("submission_1", 50, [('=HYPERLINK("http://x")', "@x.org", "-1+1")], False)
    rows = _rows(grades_csv.render(standing.build([result]), rubrics.load(default_lab().place.rubric, default_lab())))
    assert rows[1][:4] == ['\'=HYPERLINK("http://x")', "'@x.org", "'-1+1", "submission_1"]


# ---------------------------------------------------------------- the command line


def _autograder(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=120)


def test_cli_writes_the_import_and_lists_leftovers_on_stderr(batch, tmp_path):
    """Does `export` write the import file, print the unmatched submission on stderr and a summary
    on stdout, and exit 0?"""
    out = tmp_path / "canvas-import.csv"
    run = _autograder(
        "export", "--lms", "canvas", "--roster", str(FIXTURES / "canvas.csv"), "--column", "Lab 05",
        "--out", str(out), str(batch),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert _rows(out.read_text(encoding="utf-8")) == [CANVAS_HEADER, *CANVAS_ROWS]
    assert "not in the roster: submission_1006: Eve" in run.stderr
    assert run.stdout.startswith(f"wrote {out}: Canvas import for 'Lab 05: Evaluating IR Systems (12345)'")


def test_cli_refuses_a_wrong_roster_without_a_traceback(batch, tmp_path):
    """Does `export` with another LMS's roster exit 2 with one message, no traceback, no file?"""
    out = tmp_path / "import.csv"
    run = _autograder(
        "export", "--lms", "blackboard", "--roster", str(FIXTURES / "moodle.csv"), "--out", str(out), str(batch)
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr and not out.exists()
    assert "is not a Blackboard gradebook export: it has no 'Username' column" in run.stderr


def test_cli_names_every_lms_and_refuses_an_unknown_one(batch, tmp_path):
    """Does `export --help` name every LMS of the registry, and an unknown --lms exit 2 naming them?"""
    assert all(name in _autograder("export", "--help").stdout for name in export.FORMATS)
    run = _autograder(
        "export", "--lms", "sakai", "--roster", str(FIXTURES / "canvas.csv"), "--out", "x.csv", str(batch)
    )
    named = ", ".join(sorted(export.FORMATS))
    assert "sakai" not in export.FORMATS and len(export.FORMATS) >= 3
    assert run.returncode == 2 and f"unknown LMS 'sakai': choose one of {named}\n" in run.stderr


def test_cli_never_overwrites_the_roster(batch, tmp_path):
    """Is `--out` naming the roster itself refused, the roster left as it was?"""
    roster = tmp_path / "canvas.csv"
    roster.write_bytes((FIXTURES / "canvas.csv").read_bytes())
    run = _autograder("export", "--lms", "canvas", "--roster", str(roster), "--out", str(roster), str(batch))
    assert run.returncode == 2 and "is the roster itself" in run.stderr
    assert roster.read_bytes() == (FIXTURES / "canvas.csv").read_bytes()


# ---------------------------------------------------------------- with the real engine


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_really_graded_gradescope_export_reaches_canvas(tmp_path, cranfield):
    """Graded by the engine from Gradescope's export layout (students in submission_metadata.yml),
    does the batch export to Canvas with each student's real score in their row?"""
    inbox = tmp_path / "export"
    subs.write(inbox / "submission_101", {})
    subs.write(inbox / "submission_102", {"runs.py": paths.handout_file("runs.py").read_text()})
    (inbox / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Jane Doe\n    :email: jdoe@example.edu\n    :sid: 'S1001'\n"
        "submission_102:\n  :submitters:\n  - :name: Raj Patel\n    :email: raj@gmail.com\n    :sid: 'S1002'\n"
    )
    summary = batches.grade_batch([inbox], tmp_path / "out", jobs=2, progress=False, lab=default_lab())
    scores = {result.submission: result.score for result in summary.results}
    rows = _rows(export.build("canvas", FIXTURES / "canvas.csv", tmp_path / "out", "Lab 05").text)
    graded = {row[0]: row[-1] for row in rows[2:] if row[-1]}
    assert graded == {"Doe, Jane": "100", "Patel, Raj": points(scores["submission_102"])}
    assert scores["submission_102"] < 100


# ---------------------------------------------------------------- matching that explains itself

NEAR = {
    # id: (the student as Gradescope names them, what the message ends with)
    "sid with a leading zero": (
        ("Jane Q. Public", "jq@elsewhere.org", "0S1001"),
        "closest: row 3 (Doe, Jane: SID S1001: the same without leading zeros)",
    ),
    "the same name, another email and no SID": (
        ("Jane Doe", "jane.doe@gmail.com", ""),
        "closest: row 3 (Doe, Jane: the same name)",
    ),
    "the same email local part": (
        ("J. Doe", "jdoe@gmail.com", ""),
        "closest: row 3 (Doe, Jane: the same email local part (jdoe))",
    ),
    "a login as the local part": (
        ("R. P.", "rpatel@gmail.com", ""),
        "closest: row 9 (Patel, Raj: the same email local part (rpatel))",
    ),
    "nobody close": (
        ("Eve", "eve@elsewhere.org", "X9999"),
        "no roster row is close either (by SID without leading zeros, name, or email local part)",
    ),
}


@pytest.mark.parametrize("case", NEAR.values(), ids=NEAR.keys())
def test_a_student_in_no_roster_row_gets_the_closest_candidates(case, tmp_path):
    """A student whose email and SID match no roster row: does the message name the closest rows
    (SID without leading zeros, the same name, the same email local part), and give no grade?"""
    student, ending = case
    out = write_batch(tmp_path / "out", {"submission_1": (80, [student], False)})
    result = export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05")
    said = [m for m in result.messages if m.startswith("not in the roster: submission_1:")]
    assert len(said) == 1 and ending in said[0], result.messages
    assert [row[-1] for row in _rows(result.text)[2:]] == [""] * 10


def test_a_submission_with_nothing_to_grade_is_said_whole(tmp_path):
    """Is a submission that had nothing to grade quoted with its whole first problem (never cut
    mid-parenthesis, as "(flat or in a lab05/ folder,)" once was)?"""
    from autograder.grading import intake

    problem = intake.read(intake.Source("empty", tmp_path), lab=default_lab()).problems[0]
    check = CheckResult("precision_at_k: hidden edge cases", "q1", "precision_at_k", CheckKind.EDGE, 100, 0, "visible")
    failed = SubmissionResult.failed(
        "submission_1", (problem,), (), (check,), students=(Student("Jane Doe", "jdoe@example.edu", "S1001"),)
    )
    out = tmp_path / "out"
    classwork.finish(
        out,
        [failed],
        rubrics.load(default_lab().place.rubric, default_lab()),
        standing.Rules(),
        classes.RUN,
        lab=default_lab(),
    )
    messages = export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05").messages
    said = next(m for m in messages if m.startswith("not gradable:"))
    assert "(flat or in a lab05/ folder, as files or in one zip)" in problem
    assert f"({problem}): its 0 is exported" in said  # the whole problem, its parenthesis closed


@pytest.mark.parametrize(
    "lms, roster, column", [("canvas", "canvas.csv", "Lab 05"), ("moodle", "moodle.csv", "Lab 05")]
)
def test_shared_sid_is_said_in_the_export(lms, roster, column, tmp_path):
    """Two people of the batch given one SID (a typo): does the export's messages name both, the SID
    and what to fix?"""
    shared = {
        "submission_1": (80, [("Jane Doe", "jdoe@example.edu", "S1001")], False),
        "submission_2": (70, [("Maria Garcia", "mgarcia@example.edu", "S1001")], False),
    }
    out = write_batch(tmp_path / "out", shared)
    messages = export.build(lms, FIXTURES / roster, out, column).messages
    said = [m for m in messages if m.startswith("shared: ")]
    assert said == [
        "shared: SID s1001 is given to 2 people (email jdoe@example.edu: Jane Doe (submission_1); "
        "email mgarcia@example.edu: Maria Garcia (submission_2))" + export.SHARED_ADVICE
    ]


#: Two people given one SID (Jane's S1001) and two one email (Ada's): each keeps their own grade.
SHARING = {
    "submission_1": (80, [("Jane Doe", "jdoe@example.edu", "S1001")], False),
    "submission_2": (70, [("Maria Garcia", "mgarcia@example.edu", "S1001")], False),
    "submission_3": (60, [("Ada Lovelace", "alovelace@example.edu", "S1005")], False),
    "submission_4": (50, [("Grace Hopper", "alovelace@example.edu", "S1004")], False),
}
SHARING_CASES = {
    # id: (lms, roster, {a roster row's first cell: the grade it gets}, the submissions left out and listed)
    "canvas": (
        "canvas",
        "canvas.csv",
        {"Doe, Jane": "80", "Garcia, Maria": "70", "Lovelace, Ada": "60", "Hopper, Grace": "50"},
        [],
    ),
    "moodle": (
        "moodle",
        "moodle.csv",
        {
            "jdoe@example.edu": "80",
            "mgarcia@example.edu": "70",
            "alovelace@example.edu": "60",
            "ghopper@example.edu": "50",
        },
        [],
    ),
    # Blackboard knows Jane and Maria by username alone: their shared SID cannot tell them apart
    "blackboard": (
        "blackboard",
        "blackboard.xls",
        {"Lovelace": "60", "Hopper": "50"},
        ["submission_1", "submission_2"],
    ),
}


@pytest.mark.parametrize("case", SHARING_CASES.values(), ids=SHARING_CASES.keys())
def test_people_sharing_an_identifier_are_never_given_each_others_grade(case, tmp_path):
    """Two people given one SID and two given one email: does each roster row get only its own
    person's grade, and is a person the roster cannot tell apart but by the shared identifier left
    out and listed rather than guessed?"""
    lms, roster, wanted, left_out = case
    out = write_batch(tmp_path / "out", SHARING)
    assert len(_rows((out / "grades.csv").read_text(encoding="utf-8"))) == 1 + len(SHARING)  # a row each
    made = export.build(lms, FIXTURES / roster, out, "Lab 05")
    graded = {row[0]: row[-1] for row in _rows(made.text)[1:] if row[-1] and row[0] != "    Points Possible"}
    assert graded == wanted
    said = [m.split(":")[1].strip() for m in made.messages if m.startswith("left out: ")]
    assert said == left_out
    assert sum(m.startswith("shared: ") for m in made.messages) == 2
