"""The late penalty on Gradescope: ``run_autograder`` times a submission by what Gradescope's
``/autograder/submission_metadata.json`` vouches for, and charges ``grading.yml``'s penalty.

- **When:** the submission's ``created_at``.
- **Due:** the assignment's ``due_date`` (else ``grading.yml``'s ``deadline.due``); a student's
  own ``users[].assignment.due_date``, where Gradescope gives one (an extension).
- **Last accepted:** the assignment's ``late_due_date`` (a student's own where given; else
  ``grading.yml``'s ``deadline.last_accepted``); after it, 0.
- **A group** gets one score per submission on Gradescope, so one member's dates apply
  (``grading.yml``'s ``students.group_extension``): ``own`` (the default) and ``all``, the strictest
  member's (the earliest due date: no member borrows another's extension; give an extended member
  their own score by hand); ``any``, the most lenient member's (the latest due date). The log
  names whose dates applied.
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
from autograder.grading.course import deadlines, standing
from autograder.grading.results import SubmissionResult
from autograder.labkit.lab import Lab

FILE_NAME = "submission_metadata.json"
MAX_BYTES = 64 << 20  # as attempts.MAX_BYTES: previous results included


def _time(value: object, what: str) -> datetime.datetime | None:
    return None if value in (None, "") else deadlines.parse(value, None, what)


def _dates(
    data: dict[str, Any], deadline: deadlines.Deadline
) -> list[tuple[datetime.datetime, datetime.datetime | None, str]]:
    """Each member's (due date, last accepted time, who) as the metadata gives them: their own
    where given, else the assignment's (else ``grading.yml``'s); the assignment's alone without users."""
    found = data.get("assignment")
    assignment: dict[str, Any] = found if isinstance(found, dict) else {}
    due = _time(assignment.get("due_date"), f"{FILE_NAME}: assignment.due_date") or deadline.due
    last = _time(assignment.get("late_due_date"), f"{FILE_NAME}: assignment.late_due_date") or deadline.last_accepted
    users = [user for user in data.get("users") or [] if isinstance(user, dict)]
    dates = []
    for user in users or [{}]:
        given = user.get("assignment")
        own: dict[str, Any] = given if isinstance(given, dict) else {}
        mine = _time(own.get("due_date"), f"{FILE_NAME}: users[].assignment.due_date") or due
        own_last = _time(own.get("late_due_date"), f"{FILE_NAME}: users[].assignment.late_due_date")
        # lateness shifts the class's last accepted time by the extension: the own one shifted back
        mine_last = own_last - (mine - due) if own_last is not None else last
        dates.append((mine, mine_last, str(user.get("name") or user.get("email") or "the submission")))
    return dates


def late_from(
    data: dict[str, Any], deadline: deadlines.Deadline, group_extension: str = standing.DEFAULT_GROUP_EXTENSION
) -> deadlines.Late:
    """How late the submission ``data`` (the metadata's JSON) describes is, under ``deadline``'s
    penalty, by the dates of the member ``group_extension`` chooses (the module's rule);
    ``ValueError`` naming a field that is not a time."""
    created = deadlines.parse(data.get("created_at"), None, f"{FILE_NAME}: created_at")
    found = data.get("assignment")
    assignment: dict[str, Any] = found if isinstance(found, dict) else {}
    due = _time(assignment.get("due_date"), f"{FILE_NAME}: assignment.due_date") or deadline.due
    pick = max if group_extension == "any" else min
    personal, last, _ = pick(_dates(data, deadline), key=lambda dates: dates[0])
    rule = replace(deadline, due=due, last_accepted=last)
    return deadlines.lateness(created, rule, personal, f"times from Gradescope's {FILE_NAME}")


def whose(data: dict[str, Any], deadline: deadlines.Deadline, group_extension: str) -> str:
    """Whose dates a group's submission is timed by, in words ("" for one student, or members alike)."""
    dates = _dates(data, deadline)
    if len({due for due, _, _ in dates}) < 2:
        return ""
    pick = max if group_extension == "any" else min
    chosen = pick(dates, key=lambda entry: entry[0])
    kind = "most lenient" if group_extension == "any" else "strictest"
    return (
        f"a group of {len(dates)} with different due dates: timed by the {kind} member's, {chosen[2]}'s "
        f"(grading.yml students.group_extension: {group_extension}; Gradescope keeps one score per submission)"
    )


def read(root: Path, rubric_path: Path, log: Callable[[str], None] = print, *, lab: Lab) -> deadlines.Late | None:
    """The submission's lateness on Gradescope, or None (no ``deadline:`` in ``grading.yml``, or
    no trusted time: the log says which); ``lab``: the lab the rubric grades."""
    loaded = rubrics.load(rubric_path, lab)
    deadline, setting = loaded.deadline, loaded.group_extension
    if deadline is None:
        return None
    path = Path(root) / FILE_NAME
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES >> 20} MiB")
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("its top level is not an object")
        late = late_from(data, deadline, setting)
        group = whose(data, deadline, setting)
    except (OSError, ValueError) as error:
        log(f"late penalty not applied: no trusted submission time ({path}: {error})")
        return None
    if group:
        log(group)
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
