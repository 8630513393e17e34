"""Adjustments as data (``grading/course/overrides.py``): OUT/overrides.csv applied by every class
step to the checks it names, idempotently, reaching grade.json, results.json, the feedback, grades.csv
and the LMS exports; an unknown student or target, or a bad line, named with nothing applied."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from autograder.errors import InputError
from autograder.grading import rubric
from autograder.grading.course import overrides, standing
from autograder.grading.results import CheckResult, Status, Student, SubmissionResult
from autograder.labkit.kinds import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.local import classwork
from tests.support import classes

HEADER = "student,target,points,delta,reason,who\n"


def made(submission: str, email: str, scores: tuple[float, float, float]) -> SubmissionResult:
    """A result with two checks in q1 (worth 4 and 6) and one in q2 (worth 10)."""
    checks = (
        CheckResult(
            "precision_at_k: the notes' examples", "q1", "precision_at_k", CheckKind.EXAMPLES, 4, scores[0], "visible"
        ),
        CheckResult(
            "precision_at_k: hidden edge cases", "q1", "precision_at_k", CheckKind.EDGE, 6, scores[1], "visible"
        ),
        CheckResult("recall_at_k: hidden edge cases", "q2", "recall_at_k", CheckKind.EDGE, 10, scores[2], "visible"),
    )
    return SubmissionResult(
        submission, Status.GRADED, checks, students=(Student(submission.title(), email, "S" + submission),)
    )


CLASS = [made("ada", "ada@example.edu", (4, 2, 5)), made("bob", "bob@example.edu", (1, 0, 10))]


def applied(text: str, results=CLASS) -> list[SubmissionResult]:
    return overrides.apply(results, overrides.read_text(HEADER + text))


#: id: (the file's lines, the scores of ada's and bob's checks after)
APPLIED = {
    "check-points": ("ada,precision_at_k: hidden edge cases,5,,regrade,TA\n", [(4, 5, 5), (1, 0, 10)]),
    "check-delta-by-email": ("BOB@example.edu,recall_at_k: hidden edge cases,,-2,late,TA\n", [(4, 2, 5), (1, 0, 8)]),
    "by-sid": ("Sada,q2,,1,typo in the spec,Prof\n", [(4, 2, 6), (1, 0, 10)]),
    "question-delta-fills-checks-in-order": ("bob,q1,,7,regrade,TA\n", [(4, 2, 5), (4, 4, 10)]),
    "question-points": ("ada,q1,3,,plagiarism hearing,Prof\n", [(1, 2, 5), (1, 0, 10)]),
    "two-lines": ("ada,q2,,1,a,TA\nada,q2,,1,b,TA\n", [(4, 2, 7), (1, 0, 10)]),
}


@pytest.mark.parametrize(("lines", "after"), APPLIED.values(), ids=APPLIED.keys())
def test_overrides_change_the_checks_they_name(lines, after):
    """Does each adjustment change its check (or its question's checks, in order, within their points),
    for the student named by submission, email or SID, and record what it did?"""
    results = applied(lines)
    assert [tuple(check.score for check in result.checks) for result in results] == after
    for result, before in zip(results, CLASS):
        assert result.score == sum(after[CLASS.index(before)])
        changed = [check for check, old in zip(result.checks, before.checks) if check.score != old.score]
        assert sorted({item.check for item in result.adjustments}) == sorted(check.name for check in changed)


#: id: (the file, words of the error)
BAD = {
    "unknown-student": (HEADER + "zed@example.edu,q1,,1,r,TA\n", ["line 2", "'zed@example.edu' is no submission"]),
    "unknown-target": (HEADER + "ada,q9,,1,r,TA\n", ["line 2", "'q9' is neither a check nor a question of ada"]),
    "over-the-maximum": (HEADER + "ada,q2,11,,r,TA\n", ["line 2", "q2 of ada would score 11, outside 0 and 10"]),
    "no-reason": (HEADER + "ada,q2,,1,,TA\n", ["line 2", "reason is empty"]),
    "points-and-delta": (HEADER + "ada,q2,3,1,r,TA\n", ["give exactly one of points"]),
    "not-a-number": (HEADER + "ada,q2,,one,r,TA\n", ["'one' is not a number"]),
    "no-header": ("ada,q2,,1,r,TA\n", ["line 1", "must name the columns"]),
}


@pytest.mark.parametrize(("text", "words"), BAD.values(), ids=BAD.keys())
def test_a_bad_line_is_named_and_nothing_applied(text, words):
    """Is each mistake an error naming the line, saying that nothing was applied?"""
    with pytest.raises(InputError) as raised:
        overrides.apply(CLASS, overrides.read_text(text))
    for word in [*words, "nothing of it was applied"]:
        assert word in str(raised.value), raised.value


def test_applying_again_is_idempotent_and_an_empty_file_undoes():
    """Does applying the same file to results already adjusted give the same results, and applying none
    put every check back as graded?"""
    once = applied("ada,q1,,3,r,TA\nbob,recall_at_k: hidden edge cases,2,,r,TA\n")
    twice = overrides.apply(
        once, overrides.read_text(HEADER + "ada,q1,,3,r,TA\nbob,recall_at_k: hidden edge cases,2,,r,TA\n")
    )
    assert twice == once
    assert overrides.apply(once, []) == CLASS


def test_a_rescored_check_is_not_put_back():
    """When a check changed after the adjustment (a rescore), is it kept as rescored, not put back?"""
    once = applied("ada,recall_at_k: hidden edge cases,9,,r,TA\n")[0]
    rescored = once.__class__(
        **{
            **once.__dict__,
            "checks": (*once.checks[:2], once.checks[2].__class__(**{**once.checks[2].__dict__, "score": 7.0})),
        }
    )
    assert overrides.undone(rescored).checks[2].score == 7.0


def test_the_class_step_applies_the_file_everywhere_and_again(tmp_path):
    """Do grade.json, results.json, feedback.md and grades.csv show the adjustment, does a second class step
    (a regrade's) keep it once, and does removing the file undo it?"""
    out = tmp_path / "out"
    base = [classes.result(name, 50, [(name.title(), f"{name}@example.edu", "")], "", False) for name in ("ada", "bob")]
    classwork.finish(
        out, base, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    (out / overrides.FILE).write_text(HEADER + "ada@example.edu,q1,,+10,regrade request,TA Lin\n", encoding="utf-8")
    for _ in range(2):
        current, _ = classwork.finish(
            out,
            base,
            rubric.load(default_lab().place.rubric, default_lab()),
            standing.Rules(),
            classes.RUN,
            default_lab(),
        )
        assert [result.score for result in current] == [60, 50]
        stored = json.loads((out / "submissions" / "ada" / "grade.json").read_text())
        assert [item["after"] for item in stored["adjustments"]] == [60]
        assert json.loads((out / "submissions" / "ada" / "results.json").read_text())["score"] == 60
        assert (
            "- precision_at_k: hidden edge cases: 50 -> 60, adjusted by TA Lin: regrade request"
            in (out / "submissions" / "ada" / "feedback.md").read_text()
        )
        rows = {
            row["submission"]: row["total"] for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))
        }
        assert rows == {"ada": "60", "bob": "50"}
        base = current  # the next step starts from what was stored
    (out / overrides.FILE).unlink()
    current, _ = classwork.finish(
        out, base, rubric.load(default_lab().place.rubric, default_lab()), standing.Rules(), classes.RUN, default_lab()
    )
    assert [result.score for result in current] == [50, 50] and "adjustments" not in json.loads(
        (out / "submissions" / "ada" / "grade.json").read_text()
    )


def test_a_rescore_drops_the_adjustments_for_the_class_step_to_apply_again():
    """Does rescoring stored answers (points moved in grading.yml) give checks scored from their cases and no
    adjustment, so that the class step applies the overrides to the new scores?"""
    from dataclasses import replace as changed

    from autograder.grading import scoring
    from autograder.grading.rubric import CheckSpec, Question

    adjusted = overrides.apply(
        [classes.result("ada", 50, [("Ada", "ada@example.edu", "")], "", False)],
        overrides.read_text(HEADER + "ada,q1,,10,r,TA\n"),
    )[0]
    spec = CheckSpec("q1", "precision_at_k", CheckKind.EDGE, 80, scoring="proportional")
    moved = changed(rubric.load(default_lab().place.rubric, default_lab()), questions=(Question("q1", "", (spec,)),))
    again = scoring.rescored(adjusted, moved)
    assert again is not None and again.adjustments == () and again.checks[0].max_score == 80
    assert overrides.apply([again], overrides.read_text(HEADER + "ada,q1,,10,r,TA\n"))[0].score == again.score + 10


#: id: (where the overrides file is, relative to a scratch folder: None for none; refused?)
BESIDE = {
    "in-the-batch-folder": ("out", False),
    "none": (None, False),
    "in-a-gradescope-export": ("export", True),
}


@pytest.mark.parametrize(("where", "refused"), BESIDE.values(), ids=BESIDE.keys())
def test_an_overrides_file_in_a_folder_to_grade_is_refused(tmp_path, where, refused):
    """Is an overrides file left in a PATH to grade (a platform's export), where it would be ignored,
    refused with what to do, and the batch's own OUT/overrides.csv accepted (even when OUT is a PATH)?"""
    for name in ("export", "out"):
        (tmp_path / name).mkdir()
    if where is not None:
        (tmp_path / where / overrides.FILE).write_text(HEADER, encoding="utf-8")
    paths = [tmp_path / "export", tmp_path / "out"]
    if not refused:
        assert overrides.not_beside(paths, tmp_path / "out") is None
        return
    with pytest.raises(InputError) as raised:
        overrides.not_beside(paths, tmp_path / "out")
    assert str(raised.value).startswith(f"{tmp_path / 'export' / overrides.FILE} would not be applied: ")
    assert f"move it to {tmp_path / 'out' / overrides.FILE}" in str(raised.value)


def test_grade_stops_before_grading_when_an_export_holds_overrides(tmp_path):
    """Does `grade EXPORT --out OUT` exit 2 naming EXPORT's overrides file, with nothing graded?"""
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / overrides.FILE).write_text(HEADER + "submission_1,q1,,1,regrade,TA\n", encoding="utf-8")
    command = [sys.executable, "-m", "autograder", "grade", str(export), "--out", str(tmp_path / "out")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: {export / overrides.FILE} would not be applied"), result.stderr
    assert not (tmp_path / "out" / "grades.csv").exists()
