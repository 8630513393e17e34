"""Students as the unit: a class spanning the deadline (``tests/support/classes.py``: late, extended,
resubmitted, group and not accepted submissions) through the class step (``local/classwork.py``),
without the sandbox: one row per student with the policy and the late penalty applied, in
grades.csv, the class report, the students' feedback and all three LMS exports. A batch graded
end to end through the command line is in ``test_class_batch.py``."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading import rubric as rubrics
from autograder.grading.course import standing
from autograder.grading.results import Diagnosis
from autograder.labkit.load import default as default_lab
from autograder.lms import batch_results, export
from autograder.local import classwork
from autograder.reports import output_paths
from autograder.similarity import compare as similarity
from tests.support import classes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lms"
POLICIES = list(standing.POLICIES)


def finished(folder: Path, policy: str, results=None) -> Path:
    """The class (or ``results``) through the class step into ``folder``, with Ada's extension."""
    (folder / "extensions.csv").write_text(classes.EXTENSIONS, encoding="utf-8")
    rubric = classes.rubric(policy)
    rules = classwork.rules(rubric, folder / "grading.yml", folder / "extensions.csv")
    classwork.finish(folder / "out", results or classes.results(), rubric, rules, classes.RUN, lab=default_lab())
    return folder / "out"


@pytest.fixture(scope="module", params=POLICIES)
def batch(request, tmp_path_factory):
    return request.param, finished(tmp_path_factory.mktemp(request.param), request.param)


def expected(policy: str) -> dict:
    return {**classes.SAME_UNDER_EVERY_POLICY, **classes.EXPECTED[policy]}


def test_grades_csv_has_one_row_per_student_with_the_policy_applied(batch):
    """Under each policy, does grades.csv hold one row per student (each group member on their own),
    the submission the policy chose and its grade after the late penalty?"""
    policy, out = batch
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    found = {row["name"].lstrip("'"): (row["submission"], row["grade"]) for row in rows}
    assert len(rows) == len(found) == 9
    assert found == expected(policy)


def test_grades_csv_says_when_how_late_and_what_was_superseded(batch):
    """Does a student's row carry the submission time in the course's timezone, the lateness, the
    penalty, and the submissions it superseded?"""
    _, out = batch
    rows = {row["name"]: row for row in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    raj, ada, kim = rows["Raj Patel"], rows["Ada Lovelace"], rows["Kim Lee"]
    assert (raj["submitted"], raj["late"], raj["late_hours"]) == (
        "2026-12-08T12:00:00-06:00",
        "late by 2 d 12 h",
        "60.02",
    )
    assert (raj["total"], raj["penalty"], raj["grade"]) == ("64", "25", "39")
    assert (ada["late"], ada["penalty"], ada["grade"]) == ("on time (extended)", "0", "88")
    assert kim["superseded"] == (
        "submission_1041 (100, graded 0, 2026-12-09 10:00 UTC-06:00, not accepted: late by 3 d 10 h)"
    )
    jane = rows["Jane Doe"]["superseded"].split("; ")
    assert len(jane) == 2 and rows["Jane Doe"]["submission"] not in rows["Jane Doe"]["superseded"]


@pytest.mark.parametrize("lms", classes.ROSTERS)
def test_every_lms_export_gets_the_policy_and_the_penalty(batch, lms):
    """Does each LMS's import give every roster student the grade grades.csv gives them (the
    chosen submission's, less its penalty), an empty cell to the grader's failure and to students
    without a submission, and none to the student in no roster?"""
    policy, out = batch
    roster = classes.ROSTERS[lms]
    result = export.build(lms, FIXTURES / roster, out, "Lab 05" if lms != "blackboard" else None)
    rows = list(csv.reader(io.StringIO(result.text)))
    body = [row for row in rows[1:] if row[0].strip() != "Points Possible"]
    at = next(i for i, header in enumerate(rows[0]) if "Lab 05" in header)  # the grade column, wherever it is
    grades = [row[at] for row in body]
    wanted = expected(policy)
    #               Doe    Garcia Hopper  Lee  Lovelace  Mallory  Patel  Thumb   Turing  (Test Student: Canvas only)
    order = ["Jane Doe", None, "Grace Hopper", "Kim Lee", "Ada Lovelace", '=HYPERLINK("http://x")', "Raj Patel"]
    order += ["Tom Thumb", "Alan Turing"]
    cells = ["" if name in (None, "Tom Thumb") else wanted[name][1] for name in order]
    assert grades == cells + ([""] if lms == "canvas" else [])
    assert any(m.startswith("not in the roster: submission_1070: Eve") for m in result.messages)
    assert any(
        m.startswith("late: ") and "Raj" in m and "64 less the penalty is 39, exported" in m for m in result.messages
    )


def test_the_export_names_the_submissions_a_student_did_not_get(batch):
    """Is the instructor told which of a student's submissions the export took, by which policy, and
    which it did not?"""
    policy, out = batch
    messages = export.build("canvas", FIXTURES / "canvas.csv", out, "Lab 05").messages
    chosen = expected(policy)["Jane Doe"][0]
    said = [m for m in messages if m.startswith("several submissions: Doe, Jane (row 3)")]
    assert len(said) == 1 and f"took {chosen}" in said[0] and f"students.policy: {policy}" in said[0]
    assert sorted(re.findall(r"submission_\d+", said[0].split("; not ")[1])) == sorted(
        {"submission_1001", "submission_1002", "submission_1003"} - {chosen}
    )


def _report(out: Path) -> str:
    return (out / "index.html").read_text(encoding="utf-8")


def _row(report: str, name: str) -> str:
    table = report[report.index('<table class="sortable" id="students">') :]
    return next(row for row in table.split("<tr>") if f'<td data-value="{name}">' in row)


def test_the_class_report_shows_each_student_once_with_lateness_and_grade(batch):
    """Does the report's Students table hold one row per student with the chosen submission, its
    lateness, its grade, a link to its instructor view and the superseded submissions; and do the
    statistics count students, with the superseded left out?"""
    policy, out = batch
    report = _report(out)
    start = report.index('id="students"')
    table = report[start : report.index("</table>", start)]
    assert table.count("<tr>") == 1 + 9
    for name, (submission, grade) in expected(policy).items():
        row = _row(report, name.replace('"', "&quot;"))
        assert f'<td class="num">{grade}</td><td>' in row and f"submissions/{submission}/instructor.html" in row
    assert "late by 2 d 12 h" in _row(report, "Raj Patel") and "on time (extended)" in _row(report, "Ada Lovelace")
    assert "submission_1041" in _row(report, "Kim Lee") and "not accepted" in _row(report, "Kim Lee")
    superseded = {"latest": 3, "highest": 3, "latest_on_time": 3}[policy]
    assert f'<td>superseded (not counted)</td><td class="num">{superseded}</td>' in report
    grades = [float(grade) for _, grade in expected(policy).values()]
    assert f'<td>mean</td><td class="num">{sum(grades) / len(grades):.2f}</td>' in report


def test_the_report_has_an_accessible_filter_box(batch):
    """Is there a labelled search box over the Problems and Students tables, with a live status?"""
    _, out = batch
    report = _report(out)
    assert '<label for="filter">Filter the Problems and Students tables' in report
    assert 'id="filter" data-filter="students problems"' in report and 'role="status" aria-live="polite"' in report


def _diagnosed(submission: str):
    """The class with a misconception diagnosed on ``submission`` only."""
    item = Diagnosis("ap-retrieved", "average_precision", "AP divided by the relevant retrieved", "", "Part III")
    return [
        dataclasses.replace(r, checks=(dataclasses.replace(r.checks[0], diagnoses=(item,)),))
        if r.submission == submission
        else r
        for r in classes.results()
    ]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_superseded_submission_is_in_no_who_list(policy, tmp_path):
    """A misconception found only in Jane's first submission: is she listed for it (by name and id)
    only where the policy counts that submission, and never by a superseded one?"""
    report = _report(finished(tmp_path, policy, _diagnosed("submission_1001")))
    counted = policy == "highest"
    assert ("Jane Doe (submission_1001)" in report) == counted
    assert ("AP divided by the relevant retrieved" in report) == counted


def test_names_and_ids_in_the_problems_table(batch):
    """Does the Problems table name the student with the submission's id?"""
    _, out = batch
    problems = _report(out).split('id="problems"')[1].split("</table>")[0]
    assert "Tom Thumb (submission_1060)" in problems


FEEDBACK = {
    # id: (submission, what its feedback.md says)
    "late": (
        "submission_1003",
        "**Lateness:** late by 31 min: submitted 2026-12-06 00:30 UTC-06:00 (due 2026-12-05 23:59 UTC-06:00); "
        "1 started day charged, -10% (-10 points).",
    ),
    "penalty": ("submission_1003", "**Grade after the late penalty: 85 / 100**"),
    "on time": (
        "submission_1002",
        "**Lateness:** on time: submitted 2026-12-05 23:59 UTC-06:00 (due 2026-12-05 23:59 UTC-06:00).",
    ),
    "extended": ("submission_1020", "(due 2026-12-09 23:59 UTC-06:00 (extended))."),
    "not accepted": (
        "submission_1041",
        "**Lateness:** not accepted: submitted 2026-12-09 10:00 UTC-06:00, after the last accepted time",
    ),
}


@pytest.mark.parametrize("case", FEEDBACK.values(), ids=FEEDBACK.keys())
def test_the_feedback_tells_the_student_how_late(case, batch):
    """Does the student's feedback (feedback.md, feedback.html, results.json) say when it was
    submitted, when it was due, and what the lateness cost?"""
    submission, said = case
    _, out = batch
    folder = output_paths.submission_folder(out, submission)
    assert said in (folder / "feedback.md").read_text(encoding="utf-8")
    html = (folder / "feedback.html").read_text(encoding="utf-8")
    plain = said.replace("**", "").removeprefix("Lateness: ")
    assert plain[:40] in html and plain[-30:] in (folder / "results.json").read_text(encoding="utf-8")


def test_no_deadline_no_lateness(tmp_path):
    """Without a deadline in grading.yml, is nothing late: no lateness in grades.csv or feedback,
    every grade the score?"""
    rubric = classes.rubric()
    rubric = dataclasses.replace(rubric, deadline=None)
    rules = classwork.rules(rubric, tmp_path / "grading.yml")
    classwork.finish(tmp_path / "out", classes.results(), rubric, rules, classes.RUN, lab=default_lab())
    rows = list(csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8")))
    assert all(row["late"] == row["penalty"] == "" and row["grade"] == row["total"] for row in rows)
    assert "Lateness" not in (tmp_path / "out" / "submissions" / "submission_1003" / "feedback.md").read_text()


def test_submissions_without_times_are_ordered_by_id(tmp_path):
    """When no submission time is known, is a student's latest submission the highest id in natural
    order (submission_10 after submission_9)?"""
    entries = {"submission_9": (90, [classes.JANE], "", False), "submission_10": (60, [classes.JANE], "", False)}
    out = finished(tmp_path, "latest", classes.results(entries))
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert [(row["submission"], row["superseded"]) for row in rows] == [
        ("submission_10", "submission_9 (90, time unknown: on time)")
    ]


def test_a_later_deadline_restamps_the_feedback_without_regrading(tmp_path):
    """When the due date moves after grading, does the class step rewrite the students' feedback with
    their new lateness (grade.json too), keeping no grade.previous.json for it?"""
    out = finished(tmp_path, "latest")
    later = classes.rubric_text("latest", classes.DEADLINE.replace("due: 2026-12-05 23:59", "due: 2026-12-06 23:59"))
    from autograder.grading import rubric as rubrics
    from autograder.lms import batch_results

    moved = rubrics.parse(later, lab=default_lab())
    stored = batch_results.read(out).results
    classwork.finish(
        out, stored, moved, classwork.rules(moved, tmp_path / "grading.yml"), classes.RUN, lab=default_lab()
    )
    folder = output_paths.submission_folder(out, "submission_1003")
    assert "**Lateness:** on time" in (folder / "feedback.md").read_text(encoding="utf-8")
    assert '"seconds": 0' in (folder / "grade.json").read_text(encoding="utf-8").replace('"seconds":0', '"seconds": 0')
    assert not (folder / output_paths.PREVIOUS).exists()


def _autograder(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=120)


def test_grade_refuses_a_bad_extensions_file_before_grading(tmp_path):
    """Does `grade --extensions` with a file it cannot use exit 2 with the message (file, line, fix),
    no traceback, before anything is graded?"""
    (tmp_path / "grading.yml").write_text(classes.rubric_text(), encoding="utf-8")
    (tmp_path / "extensions.csv").write_text("email,due\nada@example.edu,soon\n", encoding="utf-8")
    (tmp_path / "in" / "one").mkdir(parents=True)
    run = _autograder(
        "grade", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--rubric", str(tmp_path / "grading.yml"),
        "--extensions", str(tmp_path / "extensions.csv"),
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"extensions file {tmp_path / 'extensions.csv'}, line 2: the due date 'soon' is not a date" in run.stderr
    assert not (tmp_path / "out" / "submissions").exists()


def test_extensions_without_a_deadline_are_refused(tmp_path):
    """Are extensions given for a rubric without a due date refused, saying what to add?"""
    rubric = dataclasses.replace(classes.rubric(), deadline=None)
    (tmp_path / "extensions.csv").write_text(classes.EXTENSIONS, encoding="utf-8")
    with pytest.raises(ValueError, match="sets no due date, so there is nothing to extend: add a deadline: section"):
        classwork.rules(rubric, tmp_path / "grading.yml", tmp_path / "extensions.csv")


def test_an_extension_naming_nobody_is_said(tmp_path):
    """Is an extension for a student the batch does not hold named in the report's facts?"""
    (tmp_path / "extensions.csv").write_text(classes.EXTENSIONS + "nobody@example.edu,,2026-12-09 23:59,\n")
    rubric = classes.rubric()
    rules = classwork.rules(rubric, tmp_path / "grading.yml", tmp_path / "extensions.csv")
    classwork.finish(tmp_path / "out", classes.results(), rubric, rules, classes.RUN, lab=default_lab())
    assert "naming no student of the batch: nobody@example.edu (line 3)" in _report(tmp_path / "out")


OWNERS = [
    # (id, submissions as (id, students), pairs that are the same student's, pairs that are not)
    ("same-email", [("a", [classes.JANE]), ("b", [classes.JANE])], [("a", "b")], []),
    ("sid-then-email-and-sid", [("a", [("", "", "S1001")]), ("b", [classes.JANE])], [("a", "b")], []),
    (
        "email-then-email-and-sid",
        [("a", [("Jane Doe", "jdoe@example.edu", "")]), ("b", [classes.JANE])],
        [("a", "b")],
        [],
    ),
    ("two-students", [("a", [classes.JANE]), ("b", [classes.RAJ])], [], [("a", "b")]),
    ("no-identity", [("a", []), ("b", [])], [], [("a", "b")]),
    ("group-then-its-first-member", [("a", [classes.ALAN, classes.GRACE]), ("b", [classes.ALAN])], [("a", "b")], []),
]


@pytest.mark.parametrize("made, same, other", [r[1:] for r in OWNERS], ids=[r[0] for r in OWNERS])
def test_the_similarity_knows_a_students_own_submissions(made, same, other):
    """Does ``standing.owners`` give two submissions of one person (however their emails, SIDs and
    names are spread over them) one owner, so the similarity never pairs them, and two people or
    two submissions known by their folders alone two owners?"""
    found = standing.owners([classes.result(name, 50, people, "", False) for name, people in made])
    for a, b in same:
        assert similarity.same_student(a, b, found), (a, b, found)
    for a, b in other:
        assert not similarity.same_student(a, b, found), (a, b, found)


#: Ada (extended to 2026-12-09 23:59) and Raj (the class's 2026-12-05 23:59) submit together on
#: 2026-12-07, two started days after the class's due date: 80 less 20% for who is late.
#: students.group_extension -> (grades.csv's grade of Ada, of Raj; the Canvas cells; the feedback's lateness)
GROUP_EXTENSIONS = {
    "own": ("80", "60", {"Lovelace, Ada": "80", "Patel, Raj": "60"}, "late"),
    "any": ("80", "80", {"Lovelace, Ada": "80", "Patel, Raj": "80"}, "extended"),
    "all": ("60", "60", {"Lovelace, Ada": "60", "Patel, Raj": "60"}, "late"),
}


@pytest.mark.parametrize("setting", GROUP_EXTENSIONS, ids=list(GROUP_EXTENSIONS))
def test_an_extension_covers_its_own_student(setting, tmp_path):
    """A group of a student with an extension and one without, two days after the class's due
    date: does each member get their own lateness by default (own), both the extension (any) or
    neither (all), alike in grades.csv, the stored result and the LMS export?"""
    ada, raj, cells, said = GROUP_EXTENSIONS[setting]
    group = {"submission_1": (80, [classes.ADA, classes.RAJ], "2026-12-07 20:00:00.000000000 -06:00", False)}
    (tmp_path / "extensions.csv").write_text(classes.EXTENSIONS, encoding="utf-8")
    text = classes.rubric_text() + f"students:\n  policy: latest\n  group_extension: {setting}\n"
    rubric = rubrics.parse(text, lab=default_lab())
    assert rubric.group_extension == setting
    rules = classwork.rules(rubric, tmp_path / "grading.yml", tmp_path / "extensions.csv")
    classwork.finish(tmp_path / "out", classes.results(group), rubric, rules, classes.RUN, lab=default_lab())
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO((tmp_path / "out" / "grades.csv").read_text()))}
    assert (rows["Ada Lovelace"]["grade"], rows["Raj Patel"]["grade"]) == (ada, raj)
    stored = batch_results.read(tmp_path / "out").results[0]
    assert (stored.late.seconds > 0, stored.late.extended) == (said == "late", said == "extended")
    made = export.build("canvas", FIXTURES / "canvas.csv", tmp_path / "out", "Lab 05")
    graded = {row[0]: row[-1] for row in csv.reader(io.StringIO(made.text)) if row[-1] and row[0][0] != " "}
    assert {name: cell for name, cell in graded.items() if name != "Student"} == cells
    said = classwork.facts(rules, standing.build(classes.results(group)), classes.results(group))["extensions"]
    assert f"in a group, {standing.GROUP_EXTENSIONS[setting]} (grading.yml students.group_extension: {setting})" in said


def test_an_unknown_group_extension_names_the_choices():
    """Does a group_extension the grader does not know name the three it does?"""
    text = classes.rubric_text() + "students:\n  group_extension: first\n"
    with pytest.raises(
        rubrics.RubricError,
        match=r"students\.group_extension: 'first' is not a group extension; use one of: own, any, all",
    ):
        rubrics.parse(text, lab=default_lab())


#: policy -> is Jane's first submission (submission_1001, her highest) counted, or superseded
JANE_FIRST_COUNTED = {"latest": False, "highest": True}


@pytest.mark.parametrize("policy", list(JANE_FIRST_COUNTED), ids=list(JANE_FIRST_COUNTED))
def test_a_superseded_submission_is_in_no_similar_pair(policy, tmp_path):
    """Jane's first submission shares code with Kim's and with Mallory's, and Kim's with Mallory's:
    is a pair with it in the class report's Similar code (and the identical groups) only where the
    policy counts it, while the other pair stays?"""
    if policy not in POLICIES:
        pytest.fail(f"no policy {policy!r} in standing.POLICIES: update the table")
    pairs = (
        similarity.Pair("submission_1001", "submission_1040", 0.9, 0.8, ()),
        similarity.Pair("submission_1040", "submission_1050", 0.7, 0.6, ()),
    )
    found = similarity.Similarity(
        settings=similarity.SimilaritySettings(),
        submissions=11,
        common=10,
        candidates=3,
        pairs=pairs,
        sources={},
        identical=(("submission_1001", "submission_1050"),),
    )
    (tmp_path / "extensions.csv").write_text(classes.EXTENSIONS, encoding="utf-8")
    rubric = classes.rubric(policy)
    rules = classwork.rules(rubric, tmp_path / "grading.yml", tmp_path / "extensions.csv")
    classwork.finish(tmp_path / "out", classes.results(), rubric, rules, classes.RUN, default_lab(), found)
    section = _report(tmp_path / "out").split('id="similarity"')[1].split("</section>")[0]
    counted = JANE_FIRST_COUNTED[policy]
    assert ("submission_1001" in section) == counted, section[:2000]
    assert "submission_1050" in section and "Kim Lee" in section
    kept = similarity.without(found, [] if counted else ["submission_1001"])
    assert [(pair.a, pair.b) for pair in kept.pairs] == [(p.a, p.b) for p in pairs[(0 if counted else 1) :]]
    assert kept.identical == (found.identical if counted else ())
