"""The late penalty on Gradescope: ``run_autograder`` times a submission by what Gradescope's
``/autograder/submission_metadata.json`` vouches for, and charges ``grading.yml``'s penalty.

- **When:** the submission's ``created_at``.
- **Due:** the assignment's ``due_date`` (else ``grading.yml``'s ``deadline.due``); a student's
  own ``users[].assignment.due_date``, where Gradescope gives one (an extension), the latest of a
  group's members.
- **Last accepted:** the assignment's ``late_due_date`` (a student's own where given; else
  ``grading.yml``'s ``deadline.last_accepted``); after it, 0.
- **How much:** ``grading.yml``'s ``deadline.penalty``, ``per`` and ``cap``; without a
  ``deadline:`` section nothing is charged here (Gradescope's own late settings apply).

Without a readable ``created_at`` there is no trusted time: no penalty, and the log says why.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from autograder.grading import rubric as rubrics
from autograder.grading.course import deadlines
from autograder.grading.results import SubmissionResult

FILE_NAME = "submission_metadata.json"
MAX_BYTES = 64 << 20  # as attempts.MAX_BYTES: previous results included


def _time(value: object, what: str) -> datetime.datetime | None:
    return None if value in (None, "") else deadlines.parse(value, None, what)


def late_from(data: dict[str, Any], deadline: deadlines.Deadline) -> deadlines.Late:
    """How late the submission ``data`` (the metadata's JSON) describes is, under ``deadline``'s
    penalty (the module's rule); ``ValueError`` naming a field that is not a time."""
    created = deadlines.parse(data.get("created_at"), None, f"{FILE_NAME}: created_at")
    found = data.get("assignment")
    assignment: dict[str, Any] = found if isinstance(found, dict) else {}
    due = _time(assignment.get("due_date"), f"{FILE_NAME}: assignment.due_date") or deadline.due
    last = _time(assignment.get("late_due_date"), f"{FILE_NAME}: assignment.late_due_date")
    users = [user for user in data.get("users") or [] if isinstance(user, dict)]
    own = [user["assignment"] for user in users if isinstance(user.get("assignment"), dict)]
    dues = [_time(dates.get("due_date"), f"{FILE_NAME}: users[].assignment.due_date") for dates in own]
    lasts = [_time(dates.get("late_due_date"), f"{FILE_NAME}: users[].assignment.late_due_date") for dates in own]
    personal = max((date for date in dues if date is not None), default=due)
    personal_last = max((date for date in lasts if date is not None), default=None)
    if personal_last is not None:  # lateness shifts the class's last accepted time by the extension
        last = personal_last - (personal - due)
    rule = replace(deadline, due=due, last_accepted=last or deadline.last_accepted)
    return deadlines.lateness(created, rule, personal, f"times from Gradescope's {FILE_NAME}")


def read(root: Path, rubric_path: Path, log: Callable[[str], None] = print) -> deadlines.Late | None:
    """The submission's lateness on Gradescope, or None (no ``deadline:`` in ``grading.yml``, or
    no trusted time: the log says which)."""
    deadline = rubrics.load(rubric_path).deadline
    if deadline is None:
        return None
    path = Path(root) / FILE_NAME
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES >> 20} MiB")
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("its top level is not an object")
        late = late_from(data, deadline)
    except (OSError, ValueError) as error:
        log(f"late penalty not applied: no trusted submission time ({path}: {error})")
        return None
    log(f"lateness: {deadlines.describe(late, 100.0)}")
    return late


def render_late(
    render: Callable[[SubmissionResult], dict[str, Any]], late: deadlines.Late | None
) -> Callable[[SubmissionResult], dict[str, Any]]:
    """``render`` of the result with its lateness, its score less the penalty (the one Gradescope keeps)."""
    if late is None:
        return render

    def rendered(result: SubmissionResult) -> dict[str, Any]:
        document = render(replace(result, late=late))
        document["score"] = deadlines.grade(result.score, result.max_score, late)
        return document

    return rendered
