"""The independent checker's premises of the answer shapes (``grading/diagnosis/shapes.py``): each
reads the cases as ``premises.Seen`` does and says what contradicts the
shape, or None. A shape with no premise here is a contradiction (``premises.shape``)."""

from __future__ import annotations

import math
import re
from itertools import permutations

from autograder.grading import inputs
from autograder.lab.functions.registry import FUNCTIONS as RECORDS
from autograder.lab.solution import reference_metrics
from tests.support.premises import equal


def _numbers(cases):
    return [
        (case.number if case.failed else case.expected, case.expected, case.failed) for case in cases if case.numeric
    ]


def _reads_as_number(answer) -> bool:
    if not isinstance(answer, str):
        return False
    try:
        return math.isfinite(float(answer))
    except ValueError:
        return False


def _wrong(cases):
    return [case for case in cases if case.failed]


def _neighbour(key):
    def check(diagnosis, cases, tables=None):
        reference = reference_metrics()
        name, delta = ("k", -1) if key == "k-1" else ("k", 1) if key == "k+1" else ("rel", 1)
        for case in cases:
            if case.wants_error:
                continue
            value = case.case.kwargs.get(name, 1)
            if (name not in case.case.kwargs and name == "k") or value + delta < 1:
                if case.failed:
                    return f"{case.case.id} fails but has no neighbour {key}"
                continue
            args = [inputs.resolve(arg, tables or {}) for arg in case.case.args]  # a Cranfield case's tables
            moved = reference[diagnosis.function](*args, **{**case.case.kwargs, name: value + delta})
            if not equal(
                case.answer if case.failed else case.expected, list(moved) if isinstance(moved, tuple) else moved
            ):
                return f"{case.case.id}: not the answer at {key}"
        return None

    return check


def _rounded(diagnosis, cases):
    places = int(re.search(r"rounded to (\d+)", diagnosis.title).group(1))
    pairs = _numbers(cases)
    for answer, expected, failed in pairs:
        if answer is None or not equal(answer, round(expected, places), 1e-9 if failed else 1e-6):
            return f"{answer} is not {expected} rounded to {places}"
    return None if any(a != 0 for a, _, f in pairs if f) else "every wrong answer is 0"


def _factor(diagnosis, cases):
    pairs = [(a, e) for a, e, _ in _numbers(cases)]
    ratios = {round(a / e, 5) for a, e in pairs if a is not None and e}
    if len(ratios) != 1 or ratios & {0.0, 1.0} or any(a is None or (not e and a) for a, e in pairs):
        return f"no single factor other than 0 and 1: {sorted(ratios)[:5]}"
    return None


def _fixed_order(diagnosis, cases):
    lists = [
        (case.answer if case.failed else case.expected, list(case.expected))
        for case in cases
        if isinstance(case.expected, (list, tuple))
    ]
    size = len(RECORDS[diagnosis.function].answer_items)
    for order in permutations(range(size)):
        if order != tuple(range(size)) and all(a == [e[i] for i in order] for a, e in lists):
            return None
    return "no one reordering gives every answer"


def _cells(diagnosis, cases):
    names = RECORDS[diagnosis.function].answer_items
    right = [name.strip() for name in diagnosis.title.split(" right")[0].split("wrong, ")[1].split(",")]
    for case in _wrong(cases):
        if not isinstance(case.answer, list) or len(case.answer) != len(names):
            return f"{case.case.id}: not {len(names)} cells"
        if any(case.answer[names.index(name)] != list(case.expected)[names.index(name)] for name in right):
            return f"{case.case.id}: a cell said right is wrong"
    return None


def _raises(diagnosis, cases):
    """ "raises X on every case it fails", or "on N of the M cases it fails"."""
    error = re.search(r"raises (\w+)", diagnosis.title).group(1)
    wrong = _wrong(cases)
    hits = [case for case in wrong if case.raised and error in case.raised]
    said = len(wrong) if "every case" in diagnosis.title else int(diagnosis.title.split(" on ")[1].split()[0])
    return None if len(hits) == said >= 2 else f"{len(hits)} of {len(wrong)} raised {error}, {said} said"


def _all_failing(test, what):
    def check(diagnosis, cases):
        wrong = _wrong(cases)
        return None if wrong and all(test(case) for case in wrong) else f"not every failing case {what}"

    return check


def _all_values(test, what):
    def check(diagnosis, cases):
        values = [case for case in cases if not case.wants_error]
        return None if all(test(case) for case in values) and _wrong(cases) else f"not every case {what}"

    return check


def _zero_due(diagnosis, cases):
    what = diagnosis.title.split(" where")[0]
    kinds = {
        "raises ZeroDivisionError": lambda c: bool(c.raised) and "ZeroDivisionError" in c.raised,
        "returns None": lambda c: c.answer is None,
        "returns nan": lambda c: isinstance(c.answer, float) and math.isnan(c.answer),
    }
    test = kinds.get(what, lambda c: c.number is not None and c.number < 0)
    return _all_failing(lambda c: c.numeric and c.expected == 0 and test(c), "is due 0 and " + what)(diagnosis, cases)


def _reciprocal(diagnosis, cases):
    for answer, expected, failed in _numbers(cases):
        if answer is None:
            return "a failing answer is not a number"
        if expected == 0:
            if answer != 0:
                return "a wrong answer where 0 is due"
        elif not equal(answer, 1 / expected, 1e-9 if failed else 1e-6):
            return f"{answer} is not 1 / {expected}"
    return None


def _constant(diagnosis, cases):
    answers = [case.answer if case.failed else case.expected for case in cases if not case.wants_error]
    return None if all(equal(answer, answers[0]) for answer in answers) else "the answers differ"


def _answers_change(diagnosis, cases):
    """Two calls with the same arguments (as the lab states them) in the same form answered different values."""
    answers = {}
    for case in cases:
        if case.raised is None and not case.wants_error:
            call = repr((case.case.args, sorted(case.case.kwargs.items()), case.case.form))
            answers.setdefault(call, []).append(case.answer)
    if any(not equal(values[0], other, 1e-9) for values in answers.values() for other in values[1:]):
        return None
    return "every input asked twice answered alike"


SHAPES = {
    "returns-none": _all_failing(lambda c: c.answer is None and c.raised is None, "returns None"),
    "raises": _raises,
    "zero-due": _zero_due,
    "zero-positive": _all_failing(lambda c: c.numeric and c.expected > 0 and c.number == 0, "is 0 where > 0 is due"),
    "reciprocal": _reciprocal,
    "neighbour-k-1": _neighbour("k-1"),
    "neighbour-k+1": _neighbour("k+1"),
    "neighbour-rel+1": _neighbour("rel+1"),
    "rounded": _rounded,
    "whole-numbers": lambda d, cases: (
        None
        if all(a is not None and float(a).is_integer() for a, _, _ in _numbers(cases))
        and all(not float(e).is_integer() for _, e, f in _numbers(cases) if f)
        and any(a != 0 for a, _, f in _numbers(cases) if f)
        else "not whole numbers everywhere, fractions due where it fails"
    ),
    "factor": _factor,
    "constant": _constant,
    "out-of-range": lambda d, cases: (
        None
        if RECORDS[d.function].bounded and sum(1 for c in cases if c.number is not None and not 0 <= c.number <= 1) >= 2
        else "fewer than 2 answers outside [0, 1]"
    ),
    "text-numbers": _all_failing(lambda c: c.numeric and _reads_as_number(c.answer), "is a number written as text"),
    "booleans": _all_failing(lambda c: c.numeric and isinstance(c.answer, bool), "is True or False"),
    "keys-type": _all_failing(
        lambda c: (
            isinstance(c.answer, dict)
            and c.answer
            and not any(isinstance(key, str) for key in c.answer)
            and equal({str(key): value for key, value in c.answer.items()}, c.expected)
        ),
        "is the right dict keyed by strings' other type",
    ),
    "too-high": _all_failing(lambda c: c.number is not None and c.numeric and c.number > c.expected, "is too high"),
    "too-low": _all_failing(lambda c: c.number is not None and c.numeric and c.number < c.expected, "is too low"),
    "answers-change": _answers_change,
    "cells": _cells,
    "cells-order": _fixed_order,
    "reversed": _all_values(
        lambda c: (c.answer if c.failed else c.expected) == list(reversed(list(c.expected))), "is reversed"
    ),
    "reordered": _all_failing(
        lambda c: isinstance(c.answer, list) and sorted(map(repr, c.answer)) == sorted(map(repr, c.expected)),
        "holds the right items",
    ),
}


def shape(diagnosis, cases, tables=None) -> str | None:
    """What contradicts the shape ``diagnosis``; a shape with no premise here is a contradiction too
    (a new shape must come with its premise). ``tables``: the plan's, for cases that name them."""
    key = diagnosis.id.removeprefix("shape-")
    if key not in SHAPES:
        return f"no premise known for the shape {key!r}"
    if key.startswith("neighbour-"):
        return SHAPES[key](diagnosis, cases, tables)
    return SHAPES[key](diagnosis, cases)
