"""A platform's overall time limit (``limits.overall_seconds``): calls not started by the deadline
are reported as not run and the checks finished so far keep their points; a deadline already
past grades nothing; a grader that hangs or cannot run still leaves a results file that says
what happened and where the instructor reads the details."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import textwrap
import time

import pytest

from autograder import paths
from autograder.grading import intake
from autograder.grading.results import FlagKind, Status
from autograder.grading.sandbox_report import OVERALL_TIME
from autograder.grading.session import Session
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import oneshot
from autograder.reports import gradescope_json
from tests.support import subs

pytestmark = pytest.mark.sandbox

SLOW_PRECISION = """
_reference_precision_at_k = precision_at_k

def precision_at_k(ranking, judgments, k, rel=1):
    import time
    time.sleep(1.0)
    return _reference_precision_at_k(ranking, judgments, k, rel)
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, cranfield):
    folder = tmp_path_factory.mktemp("watchdog")
    # each function's time budget (220 s / 11) far beyond the deadlines below
    return Session.open(default_lab(), subs.test_rubric(folder, submission_seconds=220), "auto", folder=folder)


def test_calls_after_the_overall_deadline_are_not_run(session, tmp_path):
    """With the overall deadline 15 s away and precision_at_k taking 1 s a call (its ~500 calls
    far past the deadline, the functions before it done in a second or two even on a busy
    machine): do the checks finished before it (the notes' examples, run first) keep their
    points, and do the calls never started say the overall limit ran out (not the submission's
    own limit)?"""
    folder = subs.write(tmp_path / "slow", {"metrics.py": subs.with_function("metrics.py", SLOW_PRECISION)})
    result = session.grade(intake.Source("slow", folder), 0, deadline=time.monotonic() + 15)
    full = {check.function for check in result.checks if check.full and check.kind == CheckKind.EXAMPLES}
    assert {"confusion_matrix", "accuracy"} <= full  # the notes' examples are run first
    messages = [case.message for check in result.checks for case in check.cases]
    assert OVERALL_TIME in messages
    assert not any("the submission's time limit" in message for message in messages)
    assert (FlagKind.LIMIT, OVERALL_TIME) in [(flag.kind, flag.text) for flag in result.flags]
    assert 0 < result.score < 100


def test_a_deadline_already_past_grades_nothing(session, tmp_path):
    """When the overall deadline has passed before grading starts: is nothing run, every check at
    0, and the reason given to the student?"""
    folder = subs.write(tmp_path / "late", {})
    result = session.grade(intake.Source("late", folder), 0, deadline=time.monotonic() - 1)
    assert result.status == Status.ERROR and result.score == 0
    assert result.problems == (OVERALL_TIME,)
    assert {check.note for check in result.checks} == {OVERALL_TIME}


def test_a_grader_that_cannot_run_says_where_the_details_are(tmp_path):
    """When the grader cannot run (no rubric): does results.json score 0 and tell the student the
    details are in the output the instructor sees on Gradescope, and does that output hold them?"""
    logged: list[str] = []
    document = oneshot.grade_one(
        intake.Source("submission", subs.write(tmp_path / "s", {})),
        tmp_path / "results.json",
        functools.partial(gradescope_json.document, lab=default_lab()),
        gradescope_json.failed,
        platform="Gradescope",
        log=logged.append,
        rubric_path=tmp_path / "missing.yml",
        lab=default_lab(),
    )
    assert json.loads((tmp_path / "results.json").read_text()) == document
    assert document["score"] == 0 and document["stdout_visibility"] == "hidden"
    assert "which your instructor sees on Gradescope" in document["output"]
    assert "has been told" not in document["output"]
    assert any("RubricError" in line and "Traceback" in line for line in logged)


HANG = """
import functools, sys, time
from pathlib import Path
from autograder.grading import intake
from autograder.labkit import load
load.activate()  # Lab 05 as autograder.lab, before it is imported by name
from autograder.platforms.common import oneshot
from autograder.grading.session import Session
from autograder.lab.spec import CheckKind
from autograder.reports import gradescope_json

Session.open = classmethod(lambda cls, *args, **kwargs: time.sleep(600))  # the grader hangs
submission, results, rubric = map(Path, sys.argv[1:])
print(f"grading from {time.monotonic()!r}")  # the clock is the machine's: the test reads it too
lab = load.default()
document = functools.partial(gradescope_json.document, lab=lab)
oneshot.grade_one(intake.Source("submission", submission), results, document, gradescope_json.failed,
                  platform="Gradescope", rubric_path=rubric, lab=lab)
"""


def test_a_hanging_grader_still_writes_results_before_the_limit(tmp_path):
    """With an overall limit of 6 s and a grader that hangs: does the process end in time, with
    exit status 0, leaving a results.json of 0 that says the autograder ran out of time?"""
    rubric = subs.test_rubric(tmp_path, overall_seconds=6)
    submission = subs.write(tmp_path / "s", {})
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(HANG), str(submission), str(tmp_path / "results.json"), str(rubric)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=paths.ROOT,
    )
    ended = time.monotonic()
    assert run.returncode == 0, run.stderr
    started = float(re.search(r"grading from ([0-9.]+)", run.stdout).group(1))
    assert ended - started < 6 + 1.5  # the limit counts from the grader's start (not Python's, on a busy machine)
    document = json.loads((tmp_path / "results.json").read_text())
    assert document["score"] == 0 and document["tests"] == []
    assert "ran out of time (its limit is 6 s)" in document["output"]
    assert "the overall limit of 6 s ran out" in run.stdout
