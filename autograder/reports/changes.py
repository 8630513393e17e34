"""What changed between two gradings of a class, per submission and why: ``python -m autograder
changes BEFORE AFTER`` (two graded batches' folders, e.g. last week's and today's).

A submission's grade (its score less any late penalty) is compared, and every difference of what
made it is named: its ``code`` (the graded files' digests), the ``rubric`` (its digest), the
``reference`` (the hidden reference's digest), an ``override`` (the adjustments applied:
``grading/course/overrides.py``), its ``lateness``, the ``random cases' seed``, or else the
``grader`` (its code or data: the plan's key). A submission only one of them has is ``added`` or
``removed``. Deterministic: submissions in id order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autograder.grading.course import deadlines, standing
from autograder.grading.results import SubmissionResult, points


@dataclass(frozen=True)
class Change:
    submission: str
    who: str  # its students' names, then its id (``standing.label``)
    before: float | None  # its grade then (None: not in that grading)
    after: float | None
    why: tuple[str, ...]


def reasons(before: SubmissionResult, after: SubmissionResult) -> tuple[str, ...]:
    """Why ``after`` may grade otherwise than ``before``, in words (empty: nothing that makes a grade changed)."""
    why = []
    if before.files != after.files:
        changed = sorted(
            name for name in {*before.files, *after.files} if before.files.get(name) != after.files.get(name)
        )
        why.append(f"code: {', '.join(changed)} changed")
    if before.rubric_digest != after.rubric_digest:
        why.append("rubric: grading.yml's checks, points or scoring changed")
    if before.reference_digest != after.reference_digest:
        why.append("reference: the hidden reference changed")
    if before.adjustments != after.adjustments:
        then = [item.words() for item in before.adjustments if item not in after.adjustments]
        now = [item.words() for item in after.adjustments if item not in before.adjustments]
        why.append(
            "override: " + "; ".join([*(f"removed {text}" for text in then), *(f"added {text}" for text in now)])
        )
    if before.late != after.late:
        why.append(f"lateness: {deadlines.brief(before.late) or 'none'} -> {deadlines.brief(after.late) or 'none'}")
    if before.random_seed != after.random_seed:
        why.append("random cases' seed: the course secret or --seed changed")
    if not why and before.grader_digest != after.grader_digest:
        why.append("grader: its code or data changed")
    return tuple(why)


def compare(before: Sequence[SubmissionResult], after: Sequence[SubmissionResult]) -> list[Change]:
    """Every submission whose grade, or what made it, differs between the two gradings."""
    then = {result.submission: result for result in before}
    now = {result.submission: result for result in after}
    changes = []
    for name in sorted({*then, *now}):
        old, new = then.get(name), now.get(name)
        if old is None or new is None:
            present = new if new is not None else old
            if present is None:  # in neither: not a name of the union
                continue
            changes.append(
                Change(
                    submission=name,
                    who=standing.label(present),
                    before=None if old is None else standing.grade(old),
                    after=None if new is None else standing.grade(new),
                    why=("added" if old is None else "removed",),
                )
            )
            continue
        why = reasons(old, new)
        if why or abs(standing.grade(old) - standing.grade(new)) > 1e-9:
            changes.append(
                Change(
                    submission=name,
                    who=standing.label(new),
                    before=standing.grade(old),
                    after=standing.grade(new),
                    why=why or ("unexplained: the same files, rubric, reference and grader",),
                )
            )
    return changes


def render(changes: Sequence[Change], compared: int) -> str:
    """The changes as text, a paragraph a submission, then how many were compared and unchanged."""
    lines = []
    for change in changes:
        shown = " -> ".join("-" if value is None else points(value) for value in (change.before, change.after))
        lines.append(f"{change.who}: {shown}")
        lines += [f"  - {reason}" for reason in change.why]
    lines.append(f"{len(changes)} of {compared} submissions changed; the others are graded the same")
    return "\n".join(lines) + "\n"
