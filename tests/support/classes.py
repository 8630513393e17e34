"""A class spanning a deadline, as the tests build it (``test_class.py``, ``test_lms.py``): late,
extended, resubmitted, group and not accepted submissions, as results made without the sandbox
or as a Gradescope export folder (submission folders and ``submission_metadata.yml`` with each
submission's ``:created_at`` as Gradescope writes it). Its students are the sample LMS rosters'
(``tests/fixtures/lms/``).

The deadline: due 2026-12-05 23:59 America/Chicago (UTC-06:00), 10% of the points per started
day late, at most 25%, nothing accepted after 2026-12-08 23:59; Ada Lovelace has an extension to
2026-12-09 23:59.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.grading.course import deadlines
from autograder.grading.intake import METADATA_TIME
from autograder.grading.results import CheckResult, Flag, FlagKind, Status, Student, SubmissionResult
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.local.run_facts import RunFacts
from tests.support import subs

#: The sample rosters, shaped as each LMS writes its gradebook export: ``tests/fixtures/lms/<lms>.<suffix>``
#: (``test_lms.py`` checks that every LMS of ``lms/registry.py: MODULES`` has exactly one).
LMS_FIXTURES = Path(__file__).parents[1] / "fixtures" / "lms"
ROSTERS = {path.stem: path.name for path in sorted(LMS_FIXTURES.glob("[!.]*")) if "-" not in path.stem}

#: The run facts a class step is given (the report's "Grading run" table).
RUN = RunFacts(
    graded_at="2026-12-02 10:00:00",
    submissions=0,
    graded_now=0,
    skipped=0,
    jobs=1,
    isolation="none",
    rubric="grading.yml",
    reference="expected.json",
    grader="lab05-autograder test",
)

DEADLINE = (
    "deadline:\n  due: 2026-12-05 23:59\n  timezone: America/Chicago\n  penalty: 10\n  per: day\n  cap: 25\n"
    "  last_accepted: 2026-12-08 23:59\n"
)
EXTENSIONS = "email,sid,due,reason\nalovelace@example.edu,,2026-12-09 23:59,illness\n"

JANE = ("Jane Doe", "jdoe@example.edu", "S1001")
RAJ = ("Raj Patel", "raj.patel.99@gmail.com", "S1002")
ALAN = ("Alan Turing", "aturing@example.edu", "S1003")
GRACE = ("Grace Hopper", "", "S1004")  # a group partner without an email
ADA = ("Ada Lovelace", "ALovelace@example.edu ", "S1005")
MALLORY = ('=HYPERLINK("http://x")', "mallory@example.edu", "S1006")
KIM = ("Kim Lee", "klee@example.edu", "S1008")
TOM = ("Tom Thumb", "tthumb@example.edu", "S1009")
EVE = ("Eve", "eve@elsewhere.org", "X9999")

#: submission id -> (score out of 100, students, :created_at as Gradescope writes it, grader failed)
CLASS = {
    "submission_1001": (92, [JANE], "2026-12-04 10:00:00.000000000 -06:00", False),  # on time, her highest
    "submission_1002": (90, [JANE], "2026-12-05 23:59:00.000000000 -06:00", False),  # at the due second: on time
    "submission_1003": (95, [JANE], "2026-12-06 00:30:00.123456789 -06:00", False),  # 31 min late: 1 day, -10
    "submission_1010": (92, [ALAN, GRACE], "2026-12-05 18:00:00.000000000 -06:00", False),  # a group, on time
    "submission_1020": (88, [ADA], "2026-12-07 10:00:00.000000000 -06:00", False),  # on time by her extension
    "submission_1030": (64, [RAJ], "2026-12-08 12:00:00.000000000 -06:00", False),  # 3 started days: 30%, cap 25
    "submission_1040": (70, [KIM], "2026-12-06 10:00:00.000000000 -06:00", False),  # 1 day late: -10
    "submission_1041": (100, [KIM], "2026-12-09 10:00:00.000000000 -06:00", False),  # after the last accepted
    "submission_1050": (55, [MALLORY], "2026-12-06 05:00:00.000000000 -06:00", False),  # 5 h late: 1 day, -10
    "submission_1060": (0, [TOM], "2026-12-05 12:00:00.000000000 -06:00", True),  # the grader failed on it
    "submission_1070": (100, [EVE], "2026-12-05 12:00:00.000000000 -06:00", False),  # in no roster
}

#: student -> (the submission that counts, its grade) under each policy ("" for Tom: no grade exported)
EXPECTED = {
    "latest": {
        "Jane Doe": ("submission_1003", "85"),
        "Kim Lee": ("submission_1040", "60"),
    },
    "highest": {
        "Jane Doe": ("submission_1001", "92"),
        "Kim Lee": ("submission_1040", "60"),
    },
    "latest_on_time": {
        "Jane Doe": ("submission_1002", "90"),
        "Kim Lee": ("submission_1040", "60"),
    },
}
SAME_UNDER_EVERY_POLICY = {
    "Alan Turing": ("submission_1010", "92"),
    "Grace Hopper": ("submission_1010", "92"),
    "Ada Lovelace": ("submission_1020", "88"),
    "Raj Patel": ("submission_1030", "39"),
    '=HYPERLINK("http://x")': ("submission_1050", "45"),
    "Tom Thumb": ("submission_1060", "0"),
    "Eve": ("submission_1070", "100"),
}


def rubric_text(policy: str = "latest", deadline: str = DEADLINE) -> str:
    """grading.yml with the class's policy and deadline."""
    return paths.RUBRIC.read_text(encoding="utf-8") + f"\nstudents:\n  policy: {policy}\n" + deadline


def rubric(policy: str = "latest") -> rubrics.Rubric:
    return rubrics.parse(rubric_text(policy), lab=default_lab())


def result(submission: str, score: float, students, created: str, failed: bool) -> SubmissionResult:
    """A result as a batch stores it, made without the sandbox: one check worth 100 points."""
    check = CheckResult(
        "precision_at_k: hidden edge cases", "q1", "precision_at_k", CheckKind.EDGE, 100, score, "visible"
    )
    people = tuple(Student(*student) for student in students)
    when = deadlines.iso(deadlines.parse(created, None)) if created else ""
    stamp = {"students": people, "submitted": when, "submitted_from": METADATA_TIME if when else ""}
    if failed:
        flag = Flag(FlagKind.GRADER, "the grader failed: KeyError")
        return SubmissionResult.failed(submission, ("the grader failed",), (flag,), (check,), **stamp)
    return SubmissionResult(submission, Status.GRADED, (check,), **stamp)


def results(entries: dict = CLASS) -> list[SubmissionResult]:
    return [result(name, *entry) for name, entry in sorted(entries.items())]


def metadata(entries: dict) -> str:
    """submission_metadata.yml as Gradescope writes it (Ruby symbols, SIDs quoted)."""
    lines = []
    for name, (_, students, created, _) in sorted(entries.items()):
        lines += [f"{name}:", "  :submitters:"]
        for student_name, email, sid in students:
            lines += [f"  - :name: {json.dumps(student_name)}", f"    :email: {email.strip()}", f"    :sid: '{sid}'"]
        lines += [f"  :created_at: {created}", "  :score: 0.0", "  :status: processed"]
    return "\n".join(lines) + "\n"


def export(folder: Path, entries: dict, files: dict) -> Path:
    """A Gradescope export of ``entries``: each submission folder holds the solutions overridden by
    ``files[submission]`` (name -> text), and the metadata names its students and time."""
    for name in entries:
        subs.write(folder / name, files.get(name, {}))
    (folder / "submission_metadata.yml").write_text(metadata(entries), encoding="utf-8")
    return folder
