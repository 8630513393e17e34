"""Attempt limits on Gradescope: ``run_autograder`` reads ``/autograder/submission_metadata.json``
(Gradescope writes it for every run: the submission's ``created_at`` and its
``previous_submissions``, each with ``submission_time``, ``score`` and ``results``) and decides,
with ``grading/course/attempts.py``, before any student code runs.

Over the limit, the student's code is not run: the results are those of the last graded attempt
(its score and tests, as Gradescope's documentation suggests), under a message saying why and
when the next graded attempt is available. Every results.json this grader writes says in
``extra_data`` whether it counts (``ATTEMPT``: graded, not graded, over the limit), which is how a
later run tells graded attempts from the others; where that marker is missing (results written
before, or by another grader), an attempt counts when it has tests and does not start with the
refusal's words.

Metadata that cannot be read (missing, not JSON, a time without its offset, a list that is not
one) never costs the student the attempt: the submission is graded as usual and the problem is
printed to the log only instructors see.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder.errors import UsageError
from autograder.grading import rubric as rubrics
from autograder.grading.course import attempts
from autograder.grading.results import Status, SubmissionResult
from autograder.labkit.lab import Lab
from autograder.reports import gradescope_json

FILE_NAME = "submission_metadata.json"
MAX_BYTES = 64 << 20  # previous results included; Gradescope keeps a results.json under 1 MB
ATTEMPT, GRADED, NOT_GRADED, OVER = (
    gradescope_json.ATTEMPT,
    gradescope_json.GRADED,
    gradescope_json.NOT_GRADED,
    gradescope_json.OVER,
)


class MetadataProblem(UsageError, ValueError):
    """The metadata cannot be used to count attempts; the message names the file and the field."""


def marked(document: dict[str, Any], state: str) -> dict[str, Any]:
    """``document`` (a results.json) with the marker saying whether it counts as an attempt."""
    extra = dict(document.get("extra_data") or {})
    extra[ATTEMPT] = state
    return {**document, "extra_data": extra}


def render_marked(
    render: Callable[[SubmissionResult], dict[str, Any]],
) -> Callable[[SubmissionResult], dict[str, Any]]:
    """A results renderer whose documents carry the marker: graded, or not graded (status error)."""
    return lambda result: marked(render(result), NOT_GRADED if result.status == Status.ERROR else GRADED)


def failed_marked(failed: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    return lambda message: marked(failed(message), NOT_GRADED)


def _counted(results: object) -> bool:
    """Did this earlier results.json count as a graded attempt?"""
    if not isinstance(results, dict):
        return False
    extra = results.get("extra_data")
    if isinstance(extra, dict) and extra.get(ATTEMPT) in (GRADED, NOT_GRADED, OVER):
        state: object = extra[ATTEMPT]  # JSON
        return state == GRADED
    output = results.get("output")
    refused = isinstance(output, str) and output.startswith(attempts.REFUSED)
    return bool(results.get("tests")) and not refused


def read(path: Path) -> tuple[datetime.datetime, list[attempts.Attempt], list[dict[str, Any]]]:
    """``(created_at, previous attempts, previous entries)`` from Gradescope's metadata file;
    ``MetadataProblem`` naming what is wrong."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BYTES:
                raise MetadataProblem(f"{path} is larger than {MAX_BYTES >> 20} MiB")
            data = json.load(handle)
    except OSError as error:
        raise MetadataProblem(f"{path} cannot be read ({error.strerror})") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise MetadataProblem(f"{path} is not JSON ({str(error)[:100]})") from None
    if not isinstance(data, dict):
        raise MetadataProblem(f"{path}: its top level is not an object")
    try:
        now = attempts.parse_time(data.get("created_at"))
    except ValueError as error:
        raise MetadataProblem(f"{path}: created_at: {error}") from None
    previous = data.get("previous_submissions", [])
    if previous is None:
        previous = []
    if not isinstance(previous, list):
        raise MetadataProblem(f"{path}: previous_submissions is not a list")
    found = []
    for index, entry in enumerate(previous):
        where = f"{path}: previous_submissions[{index}]"
        if not isinstance(entry, dict):
            raise MetadataProblem(f"{where} is not an object")
        try:
            time = attempts.parse_time(entry.get("submission_time"))
        except ValueError as error:
            raise MetadataProblem(f"{where}.submission_time: {error}") from None
        found.append(attempts.Attempt(time, _counted(entry.get("results")), str(index)))
    return now, found, previous


def _kept(entry: dict[str, Any], message: str) -> dict[str, Any]:
    """The refusal's results.json: the last graded attempt's score and tests under ``message``."""
    found = entry.get("results")
    results: dict[str, Any] = found if isinstance(found, dict) else {}
    score = results.get("score", entry.get("score", 0))
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        score = 0
    tests = [test for test in results.get("tests", []) if isinstance(test, dict)]
    before = results.get("output") if isinstance(results.get("output"), str) else ""
    document = {
        "score": score,
        "execution_time": 0,
        "output": message + ("\n\n" + before if before else ""),
        "output_format": "md",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    return marked(document, OVER)


def gate(root: Path, rubric_path: Path, log: Callable[[str], None] = print, *, lab: Lab) -> dict[str, Any] | None:
    """The results.json of a submission over the limit (its code is not run), or None: grade it
    (``lab``: the lab the rubric grades).
    Never raises: a rubric that cannot be read is the session's to report; unusable metadata is
    logged and the submission graded."""
    try:
        rubric = rubrics.load(rubric_path, lab)
    except rubrics.RubricError:
        return None
    limits = rubric.attempts
    if not limits.enabled:
        return None
    try:
        now, previous, entries = read(Path(root) / FILE_NAME)
    except MetadataProblem as problem:
        log(f"warning: attempt limits not applied, this submission is graded: {problem}")
        return None
    verdict = attempts.decide(limits, now, previous)
    used = f"{verdict.used} graded attempt(s) before, {verdict.in_period} in the last {limits.period_hours:g} h"
    if verdict.allowed:
        log(f"attempts: {used}; allowed ({limits.words()})")
        return None
    log(f"attempts: {used}; over the limit ({limits.words()}): not graded, the last graded attempt's results kept")
    last = entries[int(verdict.last.id)] if verdict.last is not None else {}
    return _kept(last, attempts.refusal(limits, verdict, rubric.timezone))
