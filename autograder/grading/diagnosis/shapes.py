"""Answer shapes: what a function's wrong answers have in common ("returns None", "rounded to 2
decimals", "the right answers at k - 1", "1 / the right answer", "raises KeyError on every case it
fails"), said without revealing a hidden expected value.

Each shape is a *premise* checked against every judged case of the function, failing and passing
(``grading.observed``): "rounded to 2 decimals" holds only when every answer is the right one
rounded to 2 decimals (a passing case whose right answer has more decimals refutes it), "off by a
constant factor" only when one factor other than 0 and 1 turns every right answer into the
answer. A shape says what is observed, never a fix it cannot know. A shape quotes an answer (a
value, an exception's class) only from a public case: what a hidden case returned or raised could
carry its inputs, so it is described, never quoted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import permutations
from typing import Any, cast

from autograder.grading import judge
from autograder.grading.diagnosis.observed import Observed
from autograder.grading.results import Diagnosis, DiagnosisKind
from autograder.labkit.lab import Lab
from autograder.labkit.record import GradedFunction

NOT_A_BUG = ("NotImplementedError",)  # a stub left as it is: said elsewhere, not a diagnosis
MIN_CASES = 2  # a shape seen on one case only is a coincidence as often as not
TINY = 1e-12  # what "equal" means between an answer and a value computed from the expected one

#: What a shape says when it fits: ``(key, title, explanation)``.
Shape = tuple[str, str, str]
#: Each judged case's list answer: ``(answer, expected, failed)``.
Lists = list[tuple[list[Any], list[Any], bool]]

#: ``(answer, expected, failed)`` of each judged case a number is due.
Numbers = list[tuple[float, float, bool]]
#: A shape's premise: what it says of the function's judged cases (and its record) when it fits, else None.
ShapeCheck = Callable[[str, list[Observed], GradedFunction], Shape | None]


def _failing(cases: list[Observed]) -> list[Observed]:
    return [case for case in cases if case.failed]


def _numbers(cases: list[Observed]) -> Numbers | None:
    """(answer, expected) of every case a number is due, failing or passing; None when a failing
    case's answer is not a number, or when fewer than ``MIN_CASES`` fail."""
    numeric = [case for case in cases if case.numeric]
    failing = [case for case in numeric if case.failed]
    if len(failing) < MIN_CASES or len(failing) < len(_failing(cases)) or any(c.number is None for c in failing):
        return None
    return [
        # a failing case's number is not None: checked just above
        (cast(float, case.number) if case.failed else float(case.expected), float(case.expected), case.failed)
        for case in numeric
    ]


def _all_zero(pairs: Numbers) -> bool:
    return all(answer == 0 for answer, _, failed in pairs if failed)


def _returns_none(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    failing = _failing(cases)
    if len(failing) >= MIN_CASES and all(case.type == "None" for case in failing):
        return (
            "returns-none",
            "returns None",
            "On every case it fails the function returns None, not a value: some path through it ends "
            "without returning one.",
        )
    return None


def _same_exception(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    failing = _failing(cases)
    raised = [case.raised for case in failing if case.raised is not None]
    if len(raised) < MIN_CASES:
        return None
    error = max(set(raised), key=raised.count)
    count = raised.count(error)
    if error in NOT_A_BUG or count < 0.8 * len(failing):
        return None
    every = "every case it fails" if count == len(failing) else f"{count} of the {len(failing)} cases it fails"
    return (
        "raises",
        f"raises {error} on {every}",
        f"It raises {error} on {every}: its traceback (on the first such case) shows where.",
    )


def _zero_due(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """Every failing case is due 0.0, and the answer there is always the same wrong kind of thing."""
    failing = _failing(cases)
    if len(failing) < MIN_CASES or not all(case.numeric and case.expected == 0 for case in failing):
        return None
    answers: set[str] = set()
    for case in failing:
        if case.raised == "ZeroDivisionError":
            answers.add("raises ZeroDivisionError")
        elif case.type == "None":
            answers.add("returns None")
        elif case.special:
            answers.add(f"returns {case.special}")
        elif case.number is not None and case.number < 0:
            answers.add(f"returns {case.number:g}" if case.public else "returns a negative number")
        else:
            return None
    if len(answers) != 1:
        return None
    what = answers.pop()
    return (
        "zero-due",
        f"{what} where the answer is 0.0",
        f"On every case it fails the right answer is 0.0 and the function {what} there"
        + (
            " (a division by zero)."
            if "ZeroDivision" in what
            else " (what 0.0 / 0.0 gives in numpy)."
            if "nan" in what
            else "."
        ),
    )


def _zero_where_positive(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    failing = _failing(cases)
    if len(failing) < MIN_CASES or not all(
        case.numeric and case.expected > 0 and case.number == 0 and case.type in judge.NUMBER_TYPES for case in failing
    ):
        return None
    return (
        "zero-positive",
        "0 where a positive value is due",
        "On every case it fails the function returns 0 where the right answer is above 0.",
    )


def _reciprocal(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """1 / the right answer on every case: a passing case must be one where the two agree."""
    pairs = _numbers(cases)
    if pairs is None or _all_zero(pairs):
        return None
    for answer, expected, failed in pairs:
        if expected == 0:
            agrees = answer == 0
        elif failed:
            agrees = math.isclose(answer, 1 / expected, rel_tol=1e-9)
        else:
            agrees = math.isclose(expected, 1 / expected)  # a right answer that is its own reciprocal
        if not agrees:
            return None
    return (
        "reciprocal",
        "the reciprocal of the right answer",
        "Every wrong answer is 1 divided by the right one (where the right answer is 0 it returns 0); the cases it "
        "passes are those where the two agree.",
    )


_NEIGHBOURS = (
    ("k-1", "at k - 1", "the cutoff is one rank short"),
    ("k+1", "at k + 1", "the cutoff reads one rank too far"),
    ("rel+1", "with rel + 1", "relevant taken as grade > rel"),
)


def _neighbour(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """The reference's answer at k - 1 (k + 1, rel + 1) on every case that has one, failing or passing."""
    failing = _failing(cases)
    if len(failing) < MIN_CASES:
        return None
    for key, where, meaning in _NEIGHBOURS:
        if not all(key in case.neighbours and case.equals(case.neighbours[key]) for case in failing):
            continue
        passing = [case for case in cases if not case.failed and not case.wants_error]
        if all(
            key not in case.neighbours
            or judge.difference(case.encoded, case.neighbours[key], tolerance=case.tolerance) is None
            for case in passing
        ):
            return (
                f"neighbour-{key}",
                f"the right answers {where}",
                f"Every answer, wrong or right, is what the right code gives {where} ({meaning}).",
            )
    return None


def _rounded(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    pairs = _numbers(cases)
    if pairs is None or _all_zero(pairs):
        return None
    tolerance = cases[0].tolerance  # the lab's, the same for every case
    for places in range(0, 6):
        if all(
            math.isclose(answer, round(expected, places), abs_tol=TINY)
            if failed
            else judge.close(round(expected, places), expected, tolerance)
            for answer, expected, failed in pairs
        ):
            return (
                "rounded",
                f"answers rounded to {places} decimals",
                f"Every answer, wrong or right, is the right one rounded to {places} decimals.",
            )
    return None


def _whole_numbers(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    pairs = _numbers(cases)
    if pairs is None or _all_zero(pairs):
        return None
    if all(answer == int(answer) for answer, _, _ in pairs) and all(
        expected != int(expected) for _, expected, failed in pairs if failed
    ):
        return (
            "whole-numbers",
            "whole numbers where fractions are due",
            "Every answer it gives is a whole number; the right answers of the cases it fails are fractions.",
        )
    return None


def _factor(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    pairs = _numbers(cases)
    if pairs is None or _all_zero(pairs) or sum(failed for _, _, failed in pairs) < 3:
        return None
    ratios = {round(answer / expected, 6) for answer, expected, _ in pairs if expected}
    if len(ratios) != 1 or ratios == {1.0} or ratios == {0.0}:
        return None
    if any(answer != 0 for answer, expected, _ in pairs if not expected):
        return None
    return (  # the factor is not said: with an answer it would give the expected value
        "factor",
        "answers off by a constant factor",
        "Every answer, wrong or right, is the right one times the same constant (other than 0 and 1).",
    )


def _constant(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    judged_values = [judge.plain(case.encoded) for case in cases if not case.wants_error]
    failing = [case for case in _failing(cases) if not case.wants_error]
    if len(failing) < 3 or any(case.encoded is None for case in cases if not case.wants_error):
        return None
    if any(value != judged_values[0] for value in judged_values):
        return None
    if len({repr(case.expected) for case in failing}) < 2:
        return None
    shown = repr(judged_values[0])[:40] if any(case.public for case in failing) else "the same value"
    return ("constant", f"returns {shown} whatever the input", f"Every answer it gives is {shown}, whatever the input.")


def _out_of_range(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    if not record.bounded:
        return None
    out = [case for case in cases if case.number is not None and not 0 <= case.number <= 1]
    if len(out) < MIN_CASES:
        return None
    example = next((f" (e.g. {case.number:g})" for case in out if case.public), "")
    return (
        "out-of-range",
        "returns values outside [0, 1]",
        f"{function}'s right answers lie between 0 and 1, but {len(out)} of its answers do not{example}.",
    )


def _direction(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    pairs = _numbers(cases)
    if pairs is None:
        return None
    wrong = [(answer, expected) for answer, expected, failed in pairs if failed]
    test: Callable[[float, float], bool]  # is the answer on that side of the right one?
    for key, word, test in (("too-high", "larger", lambda a, e: a > e), ("too-low", "smaller", lambda a, e: a < e)):
        if all(test(answer, expected) for answer, expected in wrong):
            title = f"every wrong answer is too {key[4:]}"
            return key, title, f"Every wrong answer is {word} than the right one."
    return None


def _number_as_text(text: object) -> bool:
    """Is ``text`` a string that reads as a number ('0.5', '1e-3')?"""
    try:
        return isinstance(text, str) and math.isfinite(float(text))
    except ValueError:
        return False


def _text_numbers(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """A number due: every failing answer is a string that reads as a number (a formatted value)."""
    failing = _failing(cases)
    if len(failing) < MIN_CASES or not all(
        case.numeric and case.type == "str" and _number_as_text((case.encoded or {}).get("value")) for case in failing
    ):
        return None
    return (
        "text-numbers",
        "a string where a number is due",
        "On every case it fails the answer is a number written as text (a str such as '0.5', what format() or an "
        "f-string gives), not the number itself.",
    )


def _booleans(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """A number due: every failing answer is True or False."""
    failing = _failing(cases)
    if len(failing) < MIN_CASES or not all(case.numeric and case.type == "bool" for case in failing):
        return None
    return (
        "booleans",
        "True or False where a number is due",
        "On every case it fails the answer is True or False (a test's result, e.g. any(...) or a comparison), "
        "not the number the measure counts or divides.",
    )


def _keys_of_another_type(function: str, cases: list[Observed], record: GradedFunction) -> Shape | None:
    """A dict of string keys due: every failing answer is a dict whose keys are all of another type (an
    int, say) and which, each key read as a string, is the right dict."""
    failing = _failing(cases)
    if len(failing) < MIN_CASES:
        return None
    kinds: set[str] = set()
    for case in failing:
        encoded = case.encoded
        if not isinstance(case.expected, dict) or not isinstance(encoded, dict) or encoded.get("type") != "dict":
            return None
        items = encoded.get("items")
        if not isinstance(items, list) or not items:
            return None
        rekeyed = []
        for pair in items:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], dict):
                return None
            key, value = pair
            kind = key.get("type")
            if kind not in judge.NUMBER_TYPES:
                return None
            kinds.add(str(kind))
            rekeyed.append([{"type": "str", "value": str(judge.plain(key))}, value])
        if judge.difference({**encoded, "items": rekeyed}, case.expected, tolerance=case.tolerance) is not None:
            return None
    shown = " and ".join(sorted(kinds))
    return (
        "keys-type",
        f"a dict keyed by {shown} where the keys are strings",
        f"On every case it fails the answer is the right dict but for its keys: each is of type {shown} where the "
        "right keys are strings, the ids as they come ('1', not 1).",
    )


# ---------------------------------------------------------------- answers made of items
# A fixed-size answer (a record's ``answer_items``: a tuple's cells) whose cells are wrong or moved,
# and a list whose right items come in another order.


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


def shapes_for(function: str) -> list[ShapeCheck]:
    """The shapes tried for ``function``, the most telling first."""
    return [
        _returns_none,
        _text_numbers,
        _booleans,
        _keys_of_another_type,
        _same_exception,
        _zero_due,
        _neighbour,
        _reciprocal,
        _rounded,
        _factor,
        _whole_numbers,
        _cells_order,
        _cells,
        _reversed,
        _reordered,
        _zero_where_positive,
        _out_of_range,
        _constant,
        _direction,
    ]


def diagnose(lab: Lab, function: str, cases: list[Observed]) -> list[Diagnosis]:
    """The shapes the judged cases of ``lab``'s ``function`` show (at most two)."""
    found: list[Diagnosis] = []
    if not any(case.failed for case in cases):
        return found
    for shape in shapes_for(function):
        seen = shape(function, cases, lab.records[function])
        if seen:
            key, title, explanation = seen
            found.append(
                Diagnosis(
                    id=f"shape-{key}",
                    function=function,
                    title=title,
                    explanation=explanation,
                    notes=lab.notes_part(function),
                    kind=DiagnosisKind.SHAPE,
                )
            )
        if len(found) == 2:
            break
    return found
