"""Grading one submission where a platform runs the grader once per submission (Gradescope,
PrairieLearn), with a watchdog on the platform's overall time limit.

``grade_one`` prints the doctor's findings first (the platform's log, which only instructors
see), opens the session, grades with a deadline ``limits.overall_seconds`` minus a margin (calls
not started by then are reported as not run), renders the result with the platform's
``render`` and writes it atomically; the log then says the score, the isolation and the random
cases' seed (what an instructor needs to draw the same cases again). A last-resort timer writes
the platform's ``failed`` document and ends the process if grading itself hangs; a grader that
cannot run writes that document too. Either way the platform always finds a results file. When
the sandbox cannot prove that it grades (``sandbox/proof.py``: a known honest probe did not score
full here) no student code runs and no score is given: ``refused`` writes the platform's document
without a score (its message says grading is broken) and ``ProofError`` is raised, so that the
run exits non-zero and the platform shows a failed run instead of a 0. A build that shipped no
course secret is refused alike (``course_secret.MissingSecret``): the same files would get another
grade at every run.
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder import cache, tempdirs
from autograder.grading import course_secret, intake
from autograder.grading import rubric as rubrics
from autograder.grading.results import SubmissionResult, points
from autograder.grading.session import Session
from autograder.labkit.lab import Lab
from autograder.platforms.common import doctor
from autograder.sandbox import isolation as isolations
from autograder.sandbox import proof
from autograder.sandbox.settings import Limits

#: How much of the overall limit the platform's run keeps for itself (at most ``OVERALL_MARGIN``).
MARGIN_SHARE = 0.1


def margin(overall_seconds: float) -> float:
    """Seconds before the overall limit when grading stops starting calls."""
    return min(Limits.OVERALL_MARGIN, overall_seconds * MARGIN_SHARE)


class Watchdog:
    """The overall limit of one run: ``deadline`` for grading, and a timer that, if the run is
    still going ``margin / 2`` before the end, writes the last-resort result and ends the process."""

    def __init__(self, overall_seconds: float, last_resort: Callable[[], None], started: float | None = None):
        self.started = time.monotonic() if started is None else started
        self.overall_seconds = overall_seconds
        self.deadline = self.started + overall_seconds - margin(overall_seconds)
        self._last_resort = last_resort
        self._lock = threading.Lock()
        self._written = False
        fire_at = self.started + overall_seconds - margin(overall_seconds) / 2
        self._timer = threading.Timer(max(fire_at - time.monotonic(), 0.0), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._written:
                return
            self._written = True
            try:
                self._last_resort()
            finally:
                sys.stdout.flush()
                os._exit(0)  # the platform reads the file; PrairieLearn ignores it after a non-zero exit

    def write(self, write: Callable[[], None]) -> bool:
        """Write the real result, unless the timer has already written the last-resort one."""
        with self._lock:
            if self._written:
                return False
            self._timer.cancel()
            write()
            self._written = True
            return True


def overall_seconds(rubric_path: Path, lab: Lab) -> float:
    """The rubric's (of ``lab``) overall limit (the default when the rubric cannot be read: the session
    then reports why)."""
    try:
        return rubrics.load(rubric_path, lab).limits.overall_seconds
    except rubrics.RubricError:
        return Limits().overall_seconds


def peak_memory() -> str:
    """The grader's own peak resident memory (VmHWM: this process since its exec; getrusage's
    maxrss would count what its parent held when it forked)."""
    try:
        status = Path("/proc/self/status").read_text()
        peak = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) >> 10
    except (OSError, StopIteration, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
    return f"peak memory of the grader: {peak} MiB"


def refused(failed: Callable[[str], dict[str, Any]], message: str) -> dict[str, Any]:
    """The platform's document when the grader refused to grade: its ``failed`` document without a
    score. Gradescope's specification requires a score at the top or on each test, PrairieLearn's
    one of every gradable result: without it, and with the run's non-zero exit, the platform shows
    a failed run (the student's message says grading is broken), never a 0 it would keep."""
    document = dict(failed(message))
    document.pop("score", None)
    return document


def grade_one(
    source: intake.Source,
    results_file: Path,
    render: Callable[[SubmissionResult], dict[str, Any]],  # the platform's results document (JSON)
    failed: Callable[[str], dict[str, Any]],
    isolation: str = "auto",
    uid: int | None = None,
    python: str | None = None,
    platform: str = "the platform",
    log: Callable[[str], None] = print,
    rubric_path: Path | None = None,
    *,
    lab: Lab,
) -> dict[str, Any]:
    """Grade ``source`` into ``results_file`` (``render``'s document), or write ``failed(message)``
    when the grader cannot run or runs out of time; returns what was written. When the sandbox's
    proof fails, or the build shipped no course secret, writes ``refused(message)`` (no score) and
    raises the ``ProofError`` or ``MissingSecret``."""
    started = time.monotonic()
    rubric_path = rubric_path or lab.place.rubric
    uid = isolations.DEFAULT_UID if uid is None else uid
    where = f"the autograder's output, which your instructor sees on {platform}"

    def write(document: dict[str, Any]) -> None:
        cache.write_json_atomic(results_file, document, mode=0o644)

    overall = overall_seconds(rubric_path, lab)
    out_of_time = failed(
        f"The autograder ran out of time (its limit is {overall:g} s) before it finished; your submission was "
        f"not graded. The details are in {where}: please tell them."
    )

    def last_resort() -> None:
        log(f"the overall limit of {overall:g} s ran out: wrote a result of 0")
        write(out_of_time)

    watchdog = Watchdog(overall, last_resort, started)
    refusal: proof.ProofError | course_secret.MissingSecret | None = None
    try:
        log("\n".join(doctor.examine(lab, python, uid, rubric_path, isolation).lines()))
    except Exception as error:  # the facts are for the instructor: never a reason not to grade
        log(f"the doctor could not examine this machine: {type(error).__name__}: {error}")
    try:
        with tempdirs.folder("platform-") as folder:
            session = Session.open(lab, rubric_path, isolation, uid, python, Path(folder))
            if session.secret_note:
                log(session.secret_note)
            isolations.reserve(session.isolation, 1)
            result = session.grade(source, 0, deadline=watchdog.deadline)
        document = render(result)
        log(
            f"graded: {points(result.score)} / {points(result.max_score)} ({result.status}), isolation "
            f"{result.isolation}, random seed {result.random_seed or '(none)'}, {time.monotonic() - started:.1f} s; "
            f"{peak_memory()}"
        )
        for line in [*map(str, result.flags), result.instructor_log]:
            if line:
                log(line)
    except proof.ProofError as error:  # grading here would be wrong: no score at all, a failed run
        log(f"refused to grade: {error}")
        refusal = error
        document = refused(
            failed,
            f"The autograder is broken here: it could not prove that it grades honest work correctly, so your "
            f"submission was not graded and no score was given. The details are in {where}: please tell them.",
        )
    except course_secret.MissingSecret as error:  # another grade at every run: no score at all, a failed run
        log(f"refused to grade: {error}")
        refusal = error
        document = refused(
            failed,
            "The autograder is not set up for this course (its course secret is missing), so your submission "
            f"was not graded and no score was given. The details are in {where}: please tell them.",
        )
    except Exception as error:  # the grader cannot run: say so on the platform, never a blank page
        log(traceback.format_exc())
        document = failed(
            f"The autograder could not run ({type(error).__name__}: {error}); your submission was not graded. "
            f"The details are in {where}: please tell them."
        )
    watchdog.write(lambda: write(document))
    if refusal is not None:
        raise refusal
    return document
