"""Answer shapes of answers made of items: a fixed-size answer (a record's ``answer_items``: a
tuple's cells) whose cells are wrong or moved, and a list whose right items come in another order.
Each is a premise over every judged case of the function, as in ``grading.shapes``."""

from __future__ import annotations

from itertools import permutations
from typing import Any

from autograder.grading import judge
from autograder.grading.diagnosis.observed import Observed
from autograder.labkit.record import GradedFunction

MIN_CASES = 2


#: What a shape says when it fits: ``(key, title, explanation)``.
Shape = tuple[str, str, str]
#: Each judged case's list answer: ``(answer, expected, failed)``.
Lists = list[tuple[list[Any], list[Any], bool]]


def _lists(cases: list[Observed], fixed: bool) -> Lists | None:
    """(answer, expected, failed) of every case a list is due; None when a failing case's answer is not
    a list of the expected length, or when fewer than ``MIN_CASES`` fail."""
    due = [case for case in cases if isinstance(case.expected, (list, tuple)) and not case.wants_error]
    failing = [case for case in due if case.failed]
    if len(failing) < MIN_CASES or len(failing) < sum(case.failed for case in cases):
        return None
    found: Lists = []
    for case in due:
        expected = list(case.expected)
        answer = judge.plain(case.encoded) if case.failed else expected
        if not isinstance(answer, list) or (fixed and len(answer) != len(expected)):
            return None
        found.append((answer, expected, case.failed))
    return found


def _cells(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """Only some cells of a fixed-size answer are ever wrong: the others are right on every case."""
    names = record.answer_items
    found = _lists(cases, fixed=True) if names else None
    if not found or any(len(expected) != len(names) for _, expected, _ in found):
        return None
    wrong = {cell for answer, expected, _ in found for cell, a, b in zip(names, answer, expected) if a != b}
    if not 0 < len(wrong) < len(names):
        return None
    right = [cell for cell in names if cell not in wrong]
    return (
        "cells",
        f"{' and '.join(sorted(wrong, key=names.index))} wrong, {', '.join(right)} right",
        f"Only those items of the answer are ever wrong: {record.answer_hint}",
    )


def _cells_order(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """One fixed reordering of the right cells gives every answer, wrong or right."""
    names = record.answer_items
    found = _lists(cases, fixed=True) if names else None
    if not found or any(len(expected) != len(names) for _, expected, _ in found):
        return None
    for order in permutations(range(len(names))):
        if list(order) == list(range(len(names))):
            continue
        if all([expected[i] for i in order] == answer for answer, expected, _ in found):
            moved = [names[i] for i, j in enumerate(order) if i != j]
            return (
                "cells-order",
                f"{' and '.join(moved)} in each other's places" if len(moved) == 2 else f"{', '.join(moved)} moved",
                f"Every answer, wrong or right, holds the right items with {', '.join(moved)} in other places: "
                f"{record.answer_hint}",
            )
    return None


def _reversed(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """A list answer (not a fixed-size one): every answer is the right list reversed."""
    found = None if record.answer_items else _lists(cases, fixed=False)
    if not found or not all(answer == list(reversed(expected)) for answer, expected, _ in found):
        return None
    return ("reversed", "the right items in reverse order", "Every answer, wrong or right, is the right list reversed.")


def _reordered(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """A list answer whose failing answers hold exactly the right items, in another order."""
    found = None if record.answer_items else _lists(cases, fixed=False)
    if not found or not all(
        sorted(map(repr, answer)) == sorted(map(repr, expected)) for answer, expected, failed in found if failed
    ):
        return None
    return (
        "reordered",
        "the right items in another order",
        "On every case it fails the answer holds exactly the right items, in another order.",
    )


SHAPES = [_cells_order, _cells, _reversed, _reordered]
