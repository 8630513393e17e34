"""What changed between two gradings (``reports/changes.py``, ``python -m autograder changes``): per
submission, its grade before and after, and why (code, rubric, reference, override, lateness, seed,
grader), from worked pairs of results and from two graded folders."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from autograder.grading import rubric
from autograder.grading.course import deadlines, standing
from autograder.grading.results import Adjustment, CheckResult, Status, Student, SubmissionResult
from autograder.labkit.kinds import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.lms import batch_results
from autograder.local import classwork
from autograder.reports import changes
from tests.support import classes

CHECK = CheckResult("f: hidden edge cases", "q1", "f", CheckKind.EDGE, 10, 6, "visible")
BASE = SubmissionResult(
    "ada",
    Status.GRADED,
    (CHECK,),
    students=(Student("Ada"),),
    files={"metrics.py": "a1", "runs.py": "b1"},
    rubric_digest="r1",
    reference_digest="e1",
    grader_digest="g1",
    random_seed="s1",
)
ADJUSTED = Adjustment(check=CHECK.name, before=6, after=8, reason="regrade", who="TA")
LATE = deadlines.Late(
    due="2026-12-05T23:59:00+00:00", submitted="2026-12-06T01:59:00+00:00", seconds=7200, units=1, percent=10.0
)

#: id: (the result after, its grade before -> after, the reasons' first words)
PAIRS = {
    "code": (replace(BASE, files={"metrics.py": "a2", "runs.py": "b1"}), "6 -> 6", ["code: metrics.py changed"]),
    "rubric": (replace(BASE, rubric_digest="r2", checks=(replace(CHECK, score=5),)), "6 -> 5", ["rubric: "]),
    "reference": (replace(BASE, reference_digest="e2"), "6 -> 6", ["reference: "]),
    "override": (
        replace(BASE, checks=(replace(CHECK, score=8),), adjustments=(ADJUSTED,)),
        "6 -> 8",
        ["override: added f: hidden edge cases: 6 -> 8, adjusted by TA: regrade"],
    ),
    "seed": (replace(BASE, random_seed="s2"), "6 -> 6", ["random cases' seed"]),
    "grader-alone": (replace(BASE, grader_digest="g2"), "6 -> 6", ["grader: "]),
    "rubric-explains-the-plan": (replace(BASE, rubric_digest="r2", grader_digest="g2"), "6 -> 6", ["rubric: "]),
    "unexplained": (replace(BASE, checks=(replace(CHECK, score=7),)), "6 -> 7", ["unexplained"]),
}


@pytest.mark.parametrize(("after", "shown", "why"), PAIRS.values(), ids=PAIRS.keys())
def test_a_change_says_why(after, shown, why):
    """Is each difference named as its cause, with the grade before and after?"""
    (change,) = changes.compare([BASE], [after])
    assert changes.render([change], 1).splitlines()[0] == f"Ada (ada): {shown}"
    assert len(change.why) == len(why) and all(reason.startswith(start) for reason, start in zip(change.why, why))


def test_lateness_and_added_and_removed():
    """Is a new lateness said, and a submission only one grading has added or removed?"""
    late = replace(BASE, late=LATE)
    assert changes.compare([BASE], [late])[0].why[0].startswith("lateness: none -> ")
    found = changes.compare([BASE], [replace(BASE, submission="bob", students=(Student("Bob"),))])
    assert [(c.submission, c.before, c.after, c.why) for c in found] == [
        ("ada", 6, None, ("removed",)),
        ("bob", None, 6, ("added",)),
    ]


def test_nothing_changed_is_said_as_a_count():
    """Is a grading identical to the other reported as nothing changed?"""
    assert changes.compare([BASE], [BASE]) == []
    assert changes.render([], 1) == "0 of 1 submissions changed; the others are graded the same\n"


def test_command_compares_two_graded_folders(tmp_path):
    """Does `changes BEFORE AFTER` name the submission an override changed, and no other?"""
    made = [classes.result(name, 50, [(name.title(), f"{name}@example.edu", "")], "", False) for name in ("ada", "bob")]
    classwork.finish(
        tmp_path / "before",
        made,
        rubric.load(default_lab().place.rubric, default_lab()),
        standing.Rules(),
        classes.RUN,
        default_lab(),
    )
    (tmp_path / "after").mkdir()
    (tmp_path / "after" / "overrides.csv").write_text(
        "student,target,points,delta,reason,who\nbob,q1,,5,regrade request,TA Lin\n", encoding="utf-8"
    )
    classwork.finish(
        tmp_path / "after",
        made,
        rubric.load(default_lab().place.rubric, default_lab()),
        standing.Rules(),
        classes.RUN,
        default_lab(),
    )
    command = [sys.executable, "-m", "autograder", "changes", str(tmp_path / "before"), str(tmp_path / "after")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "Bob (bob): 50 -> 55\n"
        "  - override: added precision_at_k: hidden edge cases: 50 -> 55, adjusted by TA Lin: regrade request\n"
        "1 of 2 submissions changed; the others are graded the same\n"
    )


def gradescope_export(tmp_path):
    """A Gradescope export of submissions: its metadata and a submission's folder."""
    folder = tmp_path / "assignment_export"
    (folder / "submission_1").mkdir(parents=True)
    (folder / "submission_metadata.yml").write_text("submission_1:\n  :submitters: []\n", encoding="utf-8")
    return folder


def grades_download(header: str):
    def made(tmp_path):
        path = tmp_path / "grades.csv"
        path.write_text(header + "\n", encoding="utf-8")
        return path

    return made


#: id: (the platform's export, words of the refusal)
PLATFORM_EXPORTS = {
    "gradescope-submissions": (
        gradescope_export,
        "is a Gradescope export of submissions (it holds submission_metadata.yml)",
    ),
    "gradescope-grades": (
        grades_download("First Name,Last Name,SID,Email,Total Score,Max Points,Status,Submission ID"),
        "is Gradescope's grades download (its columns submission id, total score)",
    ),
    "prairielearn-scores": (
        grades_download("UID,UIN,Username,Name,Role,Assessment,Score (%)"),
        "is PrairieLearn's grades download (its columns uid, uin)",
    ),
}


@pytest.mark.parametrize(("make", "words"), PLATFORM_EXPORTS.values(), ids=PLATFORM_EXPORTS.keys())
def test_command_refuses_a_platform_export_saying_what_to_do_instead(tmp_path, make, words):
    """Does `changes` given a platform's export instead of a graded batch exit 2 naming what it is,
    and point to the platform's own regrade tools or a local grading first?"""
    (tmp_path / "graded").mkdir()
    command = [sys.executable, "-m", "autograder", "changes", str(make(tmp_path)), str(tmp_path / "graded")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    assert words in result.stderr and "not a graded batch" in result.stderr, result.stderr
    assert "Regrade Requests" in result.stderr and "python -m autograder grade PATH... --out DIR" in result.stderr


def test_a_graded_batch_of_a_gradescope_export_is_read(tmp_path):
    """Is a folder that is a graded batch read as one, even with Gradescope's metadata copied into it?"""
    made = [classes.result("ada", 50, [("Ada", "ada@example.edu", "")], "", False)]
    out = tmp_path / "out"
    classwork.finish(
        out, made, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    (out / "submission_metadata.yml").write_text("{}\n", encoding="utf-8")
    assert [result.submission for result in batch_results.read(out).results] == ["ada"]
