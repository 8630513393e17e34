"""The late policy's rule (``grading/course/deadlines.py``) on small worked examples: on time, late by the
started hour or day, the cap, the last accepted time (moved by an extension), no due date; the
times it reads; grading.yml's deadline section and its errors; the extensions file and its errors."""

from __future__ import annotations

import datetime
import os

import pytest

from autograder import paths
from autograder.grading import intake, rubric
from autograder.grading.course import deadlines, extensions
from autograder.grading.course.deadlines import Deadline, Late
from autograder.labkit.load import default as default_lab
from tests.support import subs

CST = datetime.timezone(datetime.timedelta(hours=-6))
DUE = datetime.datetime(2026, 12, 5, 23, 59, tzinfo=CST)


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime.datetime:
    return datetime.datetime(2026, 12, day, hour, minute, second, tzinfo=CST)


PER_DAY = Deadline(DUE, penalty=10, per="day", cap=25, last_accepted=at(8, 23, 59))
PER_HOUR = Deadline(DUE, penalty=2, per="hour", cap=100)

LATENESS = {
    # id: (deadline, submitted, due (an extension) or None, (seconds late, units, percent, accepted), grade of 80/100)
    "a day early": (PER_DAY, at(4, 23, 59), None, (0, 0, 0, True), 80),
    "at the due second": (PER_DAY, at(5, 23, 59), None, (0, 0, 0, True), 80),
    "one second late: a whole day": (PER_DAY, at(5, 23, 59, 1), None, (1, 1, 10, True), 70),
    "a day and a minute: two days": (PER_DAY, at(7, 0, 0), None, (86460, 2, 20, True), 60),
    "three days: capped at 25%": (PER_DAY, at(8, 12), None, (216060, 3, 25, True), 55),
    "at the last accepted time": (PER_DAY, at(8, 23, 59), None, (259200, 3, 25, True), 55),
    "after the last accepted time: 0": (PER_DAY, at(9, 0), None, (259260, 4, 25, False), 0),
    "per hour, 90 minutes: two hours": (PER_HOUR, at(6, 1, 29), None, (5400, 2, 4, True), 76),
    "per hour, no cap, 60 hours: never below 0": (PER_HOUR, at(8, 11, 59), None, (216000, 60, 100, True), 0),
    "extended: on time": (PER_DAY, at(7, 12), at(7, 23, 59), (0, 0, 0, True), 80),
    "extended: late against the new date": (PER_DAY, at(8, 1), at(7, 23, 59), (3660, 1, 10, True), 70),
    "extended: the last accepted time moves with it": (PER_DAY, at(9, 12), at(7, 23, 59), (129660, 2, 20, True), 60),
}


@pytest.mark.parametrize("case", LATENESS.values(), ids=LATENESS.keys())
def test_lateness_and_grade_follow_the_rule(case):
    """Is each submission as late as the rule says (started units, the cap, the last accepted time,
    moved by an extension), and is its grade of 80/100 the score less the penalty, never below 0?"""
    deadline, submitted, due, (seconds, units, percent, accepted), grade = case
    late = deadlines.lateness(submitted, deadline, due)
    assert (late.seconds, late.units, late.percent, late.accepted) == (seconds, units, percent, accepted)
    assert late.extended == (due is not None)
    assert deadlines.grade(80, 100, late) == grade


def test_no_due_date_means_nothing_is_late():
    """Without a deadline, is the grade the score itself, and is nothing said about lateness?"""
    assert deadlines.grade(80, 100, None) == 80
    assert deadlines.describe(None, 100) == deadlines.brief(None) == ""


def test_an_unknown_submission_time_counts_as_on_time_and_says_so():
    """Does a result stored without a submission time count as on time, with a note saying why?"""
    late = deadlines.lateness(None, PER_DAY)
    assert late.on_time and deadlines.grade(80, 100, late) == 80
    assert deadlines.describe(late, 100).startswith("submission time unknown: counted on time")


DESCRIBED = {
    # id: (late, its words in feedback, in a table's cell)
    "on time": (
        Late("2026-12-05T23:59:00-06:00", "2026-12-05T20:00:00-06:00"),
        "on time: submitted 2026-12-05 20:00 UTC-06:00 (due 2026-12-05 23:59 UTC-06:00)",
        "on time",
    ),
    "late": (
        Late("2026-12-05T23:59:00-06:00", "2026-12-06T00:30:00-06:00", 1860, 1, "day", 10),
        "late by 31 min: submitted 2026-12-06 00:30 UTC-06:00 (due 2026-12-05 23:59 UTC-06:00); "
        "1 started day charged, -10% (-10 points)",
        "late by 31 min",
    ),
    "not accepted": (
        Late("2026-12-07T23:59:00-06:00", "2026-12-11T01:00:00-06:00", 263460, 4, "day", 25, False, True),
        "not accepted: submitted 2026-12-11 01:00 UTC-06:00, after the last accepted time "
        "(due 2026-12-07 23:59 UTC-06:00 (extended)): graded 0",
        "not accepted: late by 3 d 1 h (extended)",
    ),
}


@pytest.mark.parametrize("case", DESCRIBED.values(), ids=DESCRIBED.keys())
def test_lateness_is_said_in_words(case):
    """Does the student's feedback say when it was submitted, when it was due and what it cost,
    and a table's cell the gist?"""
    late, words, brief = case
    assert deadlines.describe(late, 100) == words and deadlines.brief(late) == brief


TIMES = {
    # id: (as written, the timezone for one without an offset, the moment)
    "Gradescope's Ruby time": ("2026-12-05 23:59:00.123456789 -06:00", None, at(5, 23, 59).replace(microsecond=123456)),
    "ISO with an offset": ("2026-12-05T23:59:00-06:00", None, at(5, 23, 59)),
    "UTC as Z": ("2026-12-06T05:59:00Z", None, at(5, 23, 59)),
    "no offset, in the course's timezone": ("2026-12-05 23:59", "America/Chicago", at(5, 23, 59)),
    "a YAML timestamp": (datetime.datetime(2026, 12, 6, 5, 59, tzinfo=datetime.timezone.utc), None, at(5, 23, 59)),
}


@pytest.mark.parametrize("case", TIMES.values(), ids=TIMES.keys())
def test_times_are_read_as_written(case):
    """Is each way a time is written (Gradescope's metadata, grading.yml, an extensions file) read
    as the same moment?"""
    text, zone, moment = case
    assert deadlines.parse(text, deadlines.zone(zone) if zone else None) == moment


BAD_TIMES = {
    # id: (as written, the timezone, what the error says)
    "no offset, no timezone": ("2026-12-05 23:59", None, "says no timezone: give it an offset"),
    "not a time": ("next Friday", None, "is not a date and time: write it as 2026-12-05 23:59"),
    "a date alone": (datetime.date(2026, 12, 5), None, "has no time of day: write one too, e.g. 2026-12-05 23:59"),
    "no such day": ("2026-02-30 10:00", "UTC", "is not a real date and time"),
}


@pytest.mark.parametrize("case", BAD_TIMES.values(), ids=BAD_TIMES.keys())
def test_a_time_that_cannot_be_read_says_how_to_write_it(case):
    """Does a time without a timezone, or not a time at all, raise a ValueError saying how to write it?"""
    text, zone, expected = case
    with pytest.raises(ValueError, match=expected):
        deadlines.parse(text, deadlines.zone(zone) if zone else None, "the due date")


# ---------------------------------------------------------------- grading.yml's deadline section

SECTIONS = {
    # id: (the deadline section's lines, what the error says)
    "no due date": ("  penalty: 10\n", "deadline.due: is missing: the due date, e.g. due: 2026-12-05 23:59"),
    "no timezone": ("  due: 2026-12-05 23:59\n", "deadline.due: the due date '2026-12-05 23:59' says no timezone"),
    "unknown timezone": (
        "  due: 2026-12-05 23:59\n  timezone: Mars/Olympus\n",
        "deadline.timezone: 'Mars/Olympus' is not a timezone this machine knows",
    ),
    "penalty over 100": ("  due: 2026-12-05T23:59:00-06:00\n  penalty: 150\n", "deadline.penalty: must be a percent"),
    "unknown unit": (
        "  due: 2026-12-05T23:59:00-06:00\n  per: week\n",
        "deadline.per: 'week' is not a unit; use one of: hour, day",
    ),
    "last accepted before due": (
        "  due: 2026-12-05T23:59:00-06:00\n  last_accepted: 2026-12-01T00:00:00-06:00\n",
        "deadline.last_accepted: 2026-12-01 00:00 UTC-06:00 is before the due date",
    ),
    "unknown key": ("  due: 2026-12-05T23:59:00-06:00\n  grace: 5\n", "deadline.grace: unknown key"),
}


@pytest.mark.parametrize("case", SECTIONS.values(), ids=SECTIONS.keys())
def test_a_bad_deadline_section_names_the_field_and_the_fix(case):
    """Does an invalid deadline section stop the rubric with a message naming the field and the fix?"""
    lines, expected = case
    text = paths.RUBRIC.read_text(encoding="utf-8") + "\ndeadline:\n" + lines
    with pytest.raises(rubric.RubricError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        rubric.parse(text, lab=default_lab())


def test_the_deadline_and_policy_regrade_nothing():
    """Is the rubric's digest (what a stored grade is matched with) the same with or without a
    deadline and a policy, so changing them regrades nothing?"""
    plain = paths.RUBRIC.read_text(encoding="utf-8")
    with_rules = plain + "\nstudents:\n  policy: highest\ndeadline:\n  due: 2026-12-05T23:59:00-06:00\n"
    assert rubric.parse(plain, lab=default_lab()).digest == rubric.parse(with_rules, lab=default_lab()).digest
    assert (
        rubric.parse(with_rules, lab=default_lab()).policy == "highest"
        and rubric.parse(with_rules, lab=default_lab()).deadline.due == DUE
    )


def test_an_unknown_policy_names_the_policies():
    """Does a policy the grader does not know name the three it does?"""
    text = paths.RUBRIC.read_text(encoding="utf-8") + "\nstudents:\n  policy: best\n"
    with pytest.raises(
        rubric.RubricError, match=r"students\.policy: 'best' is not a policy; use one of: latest, highest"
    ):
        rubric.parse(text, lab=default_lab())


# ---------------------------------------------------------------- the extensions file

CHICAGO = Deadline(DUE, zone="America/Chicago")

EXTENSION_FILES = {
    # id: (the file's text, or bytes, what the error says after the file's name)
    "no due column": (
        "email,date\nada@example.edu,2026-12-08 23:59\n",
        ", line 1: names the columns 'email', 'date': it needs 'due'",
    ),
    "no id column": ("name,due\nAda,2026-12-08 23:59\n", ", line 1: names the columns 'name', 'due': it needs"),
    "empty": ("", ", line 1: is empty: the first line names the columns"),
    "no student on a line": ("email,sid,due\n,,2026-12-08 23:59\n", ", line 2: names no student (email, sid empty)"),
    "a date it cannot read": (
        "email,due\nada@example.edu,08/12/2026\n",
        ", line 2: the due date '08/12/2026' is not a date and time",
    ),
    "before the due date": (
        "email,due\nada@example.edu,2026-12-01 10:00\n",
        ", line 2: the new due date 2026-12-01 10:00 UTC-06:00 is before",
    ),
    "a student twice": (
        "student,due\nada@example.edu,2026-12-08 23:59\n\nADA@example.edu,2026-12-09 23:59\n",
        ", line 4: ADA@example.edu already has an extension on line 2",
    ),
    "not UTF-8": (
        b"email,due\n" + "jos\xe9@example.edu,2026-12-08 23:59\n".encode("latin-1"),
        ", line 2: is not UTF-8 text",
    ),
}


@pytest.mark.parametrize("case", EXTENSION_FILES.values(), ids=EXTENSION_FILES.keys())
def test_a_bad_extensions_file_names_the_file_the_line_and_the_fix(case, tmp_path):
    """Does an extensions file that cannot be used raise a ValueError naming the file, the line
    and what to do?"""
    content, expected = case
    path = tmp_path / "extensions.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(ValueError) as error:
        extensions.read(path, CHICAGO)
    assert str(error.value).startswith(f"extensions file {path}{expected}"), str(error.value)


def test_a_missing_extensions_file_says_what_it_should_hold(tmp_path):
    """Does an extensions file that is not there say so, and what the file should hold?"""
    with pytest.raises(
        ValueError, match=r"cannot be read .*: give the path of a CSV file with the columns email or sid"
    ):
        extensions.read(tmp_path / "nope.csv", CHICAGO)


def test_extensions_are_read_by_email_or_sid_in_the_course_timezone(tmp_path):
    """Are extensions found by email or SID (without case or blanks; an SID's zeros count), their
    dates read in the course's timezone, other columns ignored, blank lines skipped?"""
    path = tmp_path / "extensions.csv"
    path.write_text(
        "\ufeffEmail,SID,Due,Reason\nAda@Example.edu ,,2026-12-08 23:59,ill\n\n,0042,2026-12-07T12:00:00Z,\n",
        encoding="utf-8",
    )
    found = extensions.read(path, CHICAGO)
    assert found.due("ada@example.edu", "") == at(8, 23, 59)
    assert found.due("", "0042") == datetime.datetime(2026, 12, 7, 12, tzinfo=datetime.timezone.utc)
    assert found.due("", "42") is None and found.due("bob@example.edu", "") is None


SUBMITTED = {
    # id: (:created_at in the metadata, or None for no metadata; the time read; where from; a note)
    "Gradescope's created_at": (
        "2026-12-06 00:30:00.123456789 -06:00",
        "2026-12-06T00:30:00-06:00",  # as written, to the second
        intake.METADATA_TIME,
        False,
    ),
    "no metadata: no time (never the files')": (None, "", "", False),
    "no created_at: no time": ("", "", "", False),
    "unreadable created_at: no time, said": ("yesterday", "", "", True),
}


@pytest.mark.parametrize("case", SUBMITTED.values(), ids=SUBMITTED.keys())
def test_the_submission_time_comes_from_the_metadata_never_the_files(case, tmp_path):
    """Is a submission's time Gradescope's created_at when the metadata has one that reads, else
    unknown (never its files' modification times, which unzipping sets), with a note naming the
    entry when created_at is there but unreadable?"""
    created, expected, origin, noted = case
    folder = subs.write(tmp_path / "submission_7", {})
    for stamp, name in enumerate(("metrics.py", "runs.py")):  # file times that must not count
        moment = datetime.datetime(2026, 12, 6, 5 + stamp, tzinfo=datetime.timezone.utc).timestamp()
        os.utime(folder / name, (moment, moment))
    if created is not None:
        when = f"  :created_at: {created}\n" if created else ""
        entry = f"submission_7:\n  :submitters:\n  - :name: Ada\n    :email: ada@example.edu\n    :sid: '1'\n{when}"
        (tmp_path / "submission_metadata.yml").write_text(entry, encoding="utf-8")
    (source,) = intake.discover([tmp_path], lab=default_lab())
    assert (source.submitted, source.submitted_from) == (expected, origin)
    assert any("created_at" in note and "submission_7" in note for note in source.notes) == noted
