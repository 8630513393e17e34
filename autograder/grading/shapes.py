"""Answer shapes: what the wrong answers of one function have in common, said without revealing a
hidden expected value ("returns None", "rounded to 2 decimals", "the right answers at k-1",
"raises KeyError on every case it fails"). Each shape looks only at the failing cases. A shape
quotes an answer (a value, an exception's class) only from a public case: what a hidden case
returned or raised could carry its inputs, so it is described, never quoted.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from autograder.grading import judge
from autograder.grading.results import Diagnosis, DiagnosisKind, shown_error
from autograder.lab.functions.registry import FUNCTIONS as RECORDS
from autograder.lab.functions.registry import run_writer
from autograder.lab.spec import notes_part
from autograder.sandbox.channel import OutcomeStatus

NOT_A_BUG = ("NotImplementedError",)  # a stub left as it is: said elsewhere, not a diagnosis
MIN_CASES = 2  # a shape seen on one case only is a coincidence as often as not


class Failing:
    """One failing case as a shape sees it: its expected value, the answer, what it raised."""

    def __init__(self, planned, outcome, neighbours: dict):
        self.planned, self.outcome = planned, outcome
        self.expected = planned.expected
        self.public = bool(planned.case.public)
        self.encoded = outcome.value if outcome.status == OutcomeStatus.VALUE else None
        error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else None
        raised = error.get("type") if error is not None else None
        if raised is not None and not self.public:  # a hidden case's exception is named as its feedback names it
            raised = shown_error(str(raised), tuple(error.get("mro", ()) if error else ()))
        self.raised = raised
        self.neighbours = neighbours
        self.type = self.encoded.get("type") if isinstance(self.encoded, dict) else None
        try:
            self.number: float | None = judge.number(self.encoded) if self.encoded is not None else None
        except judge.Unacceptable:
            self.number = None

    def equals(self, value) -> bool:
        return self.encoded is not None and judge.difference(self.encoded, value) is None


def _numeric(items: list[Failing]) -> list[Failing]:
    return [item for item in items if isinstance(item.expected, (int, float)) and not isinstance(item.expected, bool)]


def _returns_none(items):
    hit = [item for item in items if item.type == "None"]
    if len(hit) == len(items):
        return (
            "returns-none",
            "returns None",
            "On every case it fails the function returns None: a return statement is missing on some path "
            "(or it prints the value instead of returning it).",
        )
    return None


def _zero_due(items):
    zero = [item for item in _numeric(items) if item.expected == 0]
    if not zero or len(zero) < len(items) * 0.75:
        return None
    answers = set()
    for item in zero:
        if item.raised == "ZeroDivisionError":
            answers.add("raises ZeroDivisionError")
        elif item.type == "None":
            answers.add("returns None")
        elif item.type == "float" and str((item.encoded or {}).get("value")) in ("nan", "inf", "-inf"):
            answers.add(f"returns {(item.encoded or {}).get('value')}")
        elif item.number is not None and item.number < 0:
            answers.add(f"returns {item.number:g}" if item.public else "returns a negative number")
    if len(answers) == 1 and len(zero) >= MIN_CASES:
        what = answers.pop()
        return (
            "zero-due",
            f"{what} where the measure is 0.0",
            f"Where nothing relevant is found (R = 0, IDCG = 0, or an empty ranking) the function {what}; the "
            "contract's answer there is 0.0: check for it before dividing.",
        )
    return None


def _out_of_range(function):
    def shape(items):
        if not RECORDS[function].bounded:
            return None
        out = [item for item in items if item.number is not None and not 0 <= item.number <= 1]
        if len(out) >= MIN_CASES:
            example = next((f" (e.g. {item.number:g})" for item in out if item.public), "")
            return (
                "out-of-range",
                "returns values outside [0, 1]",
                f"{function} is a share: it lies between 0 and 1, but some answers do not{example}: "
                "check the denominator.",
            )
        return None

    return shape


def _rounded(items):
    numeric = [(item.number, item.expected) for item in _numeric(items) if item.number is not None]
    if len(numeric) < MIN_CASES or len(numeric) < len(items):
        return None
    for places in range(0, 5):
        if all(math.isclose(number, round(expected, places), abs_tol=1e-12) for number, expected in numeric):
            return (
                "rounded",
                f"answers rounded to {places} decimals",
                f"Every wrong answer is the right one rounded to {places} decimals: return the full value "
                "(round only when you print).",
            )
    return None


def _whole_numbers(items):
    numeric = [(item.number, item.expected) for item in _numeric(items) if item.number is not None]
    if len(numeric) < MIN_CASES or len(numeric) < len(items):
        return None
    if all(number == int(number) and expected != int(expected) for number, expected in numeric):
        return (
            "whole-numbers",
            "whole numbers where fractions are due",
            "Every wrong answer is a whole number where the right one is a fraction: integer division (//), "
            "int() or round() somewhere?",
        )
    return None


def _neighbour(items):
    for key, words in (
        ("k-1", "at k - 1: the cutoff is one rank short (the top k is ranking[:k])"),
        ("k+1", "at k + 1: the cutoff reads one rank too far (the top k is ranking[:k])"),
        ("rel+1", "with rel + 1: relevant means grade >= rel, not grade > rel"),
    ):
        known = [item for item in items if key in item.neighbours]
        if (
            len(known) >= MIN_CASES
            and len(known) == len(items)
            and all(item.equals(item.neighbours[key]) for item in known)
        ):
            return (
                f"neighbour-{key}",
                f"the right answers {words.split(':')[0]}",
                f"Every wrong answer is what the right code gives {words}.",
            )
    return None


def _same_exception(items):
    raised = [item.raised for item in items if item.raised is not None]
    if len(raised) < MIN_CASES or len(raised) < 0.8 * len(items):
        return None
    error = max(set(raised), key=raised.count)
    count = raised.count(error)
    if error in NOT_A_BUG or count < 0.8 * len(items):
        return None
    every = "every case it fails" if count == len(items) else f"{count} of the {len(items)} cases it fails"
    return (
        "raises",
        f"raises {error} on {every}",
        f"It raises {error} on {every}: its traceback (on the first such case) shows where.",
    )


def _constant(items):
    answers = [judge.plain(item.encoded) for item in items if item.encoded is not None]
    if len(answers) < 3 or len(answers) < len(items) or any(answer != answers[0] for answer in answers):
        return None
    if len({repr(item.expected) for item in items}) > 1:
        shown = repr(answers[0])[:40] if any(item.public for item in items) else "the same value"
        return (
            "constant",
            f"returns {shown} on every case it fails",
            f"The answer is {shown} whatever the input: does the code reach the computation?",
        )
    return None


def _direction(items):
    numeric = [(item.number, item.expected) for item in _numeric(items) if item.number is not None]
    if len(numeric) < MIN_CASES or len(numeric) < len(items):
        return None
    if all(number > expected for number, expected in numeric):
        return (
            "too-high",
            "every wrong answer is too high",
            "Every wrong answer is larger than the right one: something is counted too often (a document, a rank), "
            "or a denominator is too small.",
        )
    if all(number < expected for number, expected in numeric):
        return (
            "too-low",
            "every wrong answer is too low",
            "Every wrong answer is smaller than the right one: something is missed (a document, a rank, a gain), "
            "or a denominator is too large.",
        )
    return None


def _cells(function):
    """Only some items of a fixed-size answer ever wrong (a record's ``answer_items``: a tuple's cells)."""
    names = RECORDS[function].answer_items

    def shape(items):
        if not names or len(items) < MIN_CASES:
            return None
        wrong: set = set()
        for item in items:
            got = judge.plain(item.encoded) if item.encoded is not None else None
            expected = list(item.expected) if isinstance(item.expected, (list, tuple)) else None
            if not isinstance(got, list) or expected is None or len(got) != len(expected):
                return None
            wrong |= {cell for cell, a, b in zip(names, got, expected) if a != b}
        if not 0 < len(wrong) < len(names):
            return None
        right = [cell for cell in names if cell not in wrong]
        return (
            "cells",
            f"{' and '.join(sorted(wrong, key=names.index))} wrong, {', '.join(right)} right",
            f"Only those items of the answer are ever wrong: {RECORDS[function].answer_hint}",
        )

    return shape


def _factor(items):
    numeric = [(item.number, item.expected) for item in _numeric(items) if item.number is not None and item.expected]
    if len(numeric) < 3 or len(numeric) < len(items):
        return None
    ratios = {round(number / expected, 6) for number, expected in numeric}
    if len(ratios) == 1 and ratios.pop() != 1:  # the factor is not said: with the answer it gives the expected value
        return (
            "factor",
            "answers off by a constant factor",
            "Every wrong answer is the right one times the same constant: a constant in the formula (a log "
            "base, a denominator, a gain) is off.",
        )
    return None


def _cells_order(function):
    """A fixed-size answer's right items in another order."""

    def shape(items):
        if not RECORDS[function].answer_items:
            return None
        swapped = [
            item
            for item in items
            if isinstance(item.expected, list)
            and item.encoded is not None
            and any(item.equals(order) for order in _orders(item.expected))
        ]
        if len(swapped) >= MIN_CASES and len(swapped) == len(items):
            return (
                "cells-order",
                f"the {len(RECORDS[function].answer_items)} items in another order",
                f"Every wrong answer has the right items in another order: {RECORDS[function].answer_hint}",
            )
        return None

    return shape


def _orders(cells: list) -> list:
    from itertools import permutations

    return [list(order) for order in permutations(cells) if list(order) != cells]


def _list_order(function):
    """A list answer (not a fixed-size one) reversed."""

    def shape(items):
        if RECORDS[function].answer_items:
            return None
        flipped = [
            item
            for item in items
            if isinstance(item.expected, list) and len(item.expected) > 1 and item.equals(list(reversed(item.expected)))
        ]
        if len(flipped) >= MIN_CASES and len(flipped) == len(items):
            return (
                "reversed",
                "the ids in reverse order",
                "Every wrong answer is the right list reversed: sort by the absolute difference, largest first.",
            )
        return None

    return shape


def shapes_for(function: str) -> list[Callable]:
    """The shapes tried for ``function``, the most telling first."""
    return [
        _returns_none,
        _same_exception,
        _zero_due,
        _neighbour,
        _rounded,
        _whole_numbers,
        _cells_order(function),
        _cells(function),
        _list_order(function),
        _out_of_range(function),
        _factor,
        _constant,
        _direction,
    ]


def diagnose(function: str, items: list[Failing]) -> list[Diagnosis]:
    """The shapes the failing cases of ``function`` show (at most two)."""
    found = []
    for shape in shapes_for(function):
        seen = shape(items) if items else None
        if seen:
            key, title, explanation = seen
            found.append(
                Diagnosis(f"shape-{key}", function, title, explanation, notes_part(function), DiagnosisKind.SHAPE)
            )
        if len(found) == 2:
            break
    return found


def run_shapes(messages: list[str]) -> list[Diagnosis]:
    """The run writer's wrong files have a shape too: the same exception on every scenario it fails."""
    writer = run_writer() or ""
    raised = [message.split(":")[0] for message in messages if message.startswith(f"{writer} raised ")]
    if len(raised) < MIN_CASES or len(raised) < 0.8 * len(messages) or len(set(raised)) != 1:
        return []
    error = raised[0].removeprefix(f"{writer} raised ")
    if error in NOT_A_BUG:
        return []
    return [
        Diagnosis(
            "shape-raises",
            writer,
            f"raises {error} on every case it fails",
            f"{writer} raises {error} where the contract asks for a file: its traceback (in the first "
            "failing case) shows where.",
            notes_part(writer),
            DiagnosisKind.SHAPE,
        )
    ]
