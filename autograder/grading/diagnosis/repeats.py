"""The same input answered twice, differently: state carried from one call to the next.

Two sources of repeats: the plan's own (below), and the counterexamples' search, which asks its start
case again first, in a process of its own (``counterexamples.Finder``: ``asked_again``).

The plan may ask a call more than once (a case that comes back in another check; the call forms'
copies of a random case are other calls: ``key``). A pure function answers each alike. When two calls
with the same arguments in the same form answer different values, what the function
answers depends on the calls before it: a global or a cache kept between calls, a default argument
that grows, or an input changed in place. That is said, with the first such input and both answers;
nothing is assumed of which answer is right.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from autograder.grading import judge
from autograder.grading.diagnosis.observed import Observed
from autograder.grading.results import Diagnosis, DiagnosisKind

ID = "shape-answers-change"  # the id of the diagnosis


def key(case: Observed) -> str:
    """The call of a case: its arguments as the lab states them (tables by name) and its call form. Two
    forms of one input are not the same call: a signature out of the contract's order binds them to
    other parameters (a positional 3 taken as rel), which is no state at all."""
    return repr((case.case.args, sorted(case.case.kwargs.items()), case.case.form))


def _number(encoded: Any) -> float | None:
    try:
        return judge.number(encoded)
    except judge.Unacceptable:
        return None


def values_differ(a: Any, b: Any, tolerance: float) -> bool:
    """Do two encoded answers differ (numbers beyond ``tolerance``, NaN equal to NaN; anything else as
    plain data, of the same type)?"""
    first, second = _number(a), _number(b)
    if first is not None and second is not None:
        if math.isnan(first) or math.isnan(second):
            return math.isnan(first) != math.isnan(second)
        return not judge.close(first, second, tolerance)
    kind = (a.get("type") if isinstance(a, dict) else None, b.get("type") if isinstance(b, dict) else None)
    return kind[0] != kind[1] or judge.plain(a) != judge.plain(b)


def differ(a: Observed, b: Observed) -> bool:
    """Do two judged cases' answers differ?"""
    return values_differ(a.encoded, b.encoded, a.tolerance)


def changed(cases: Sequence[Observed]) -> tuple[Observed, Observed, int] | None:
    """The first two calls of one input that answered different values (in call order), and how many
    inputs did so; None when every input asked more than once answered alike."""
    first: dict[str, Observed] = {}
    found: list[tuple[Observed, Observed]] = []
    for case in sorted(cases, key=lambda case: case.planned.call):
        if case.encoded is None or case.wants_error:
            continue
        seen = first.setdefault(key(case), case)
        if seen is case or any(seen is earlier for earlier, _ in found):
            continue
        if differ(seen, case):
            found.append((seen, case))
    if not found:
        return None
    shown = next(((a, b) for a, b in found if a.public and b.public), found[0])  # a public pair, if any
    return shown[0], shown[1], len(found)


def diagnose(function: str, notes: str, cases: Sequence[Observed]) -> list[Diagnosis]:
    """The diagnosis of answers that change between calls of the same input, if any."""
    found = changed(cases)
    if found is None:
        return []
    before, after, count = found
    inputs = "one input" if count == 1 else f"{count} inputs"
    answered = (
        f": {judge.shown(before.encoded, 80)} first, {judge.shown(after.encoded, 80)} later"
        if before.public and after.public  # a hidden case's answers are not shown
        else ""
    )
    return [
        Diagnosis(
            id=ID,
            function=function,
            title="answers the same call differently when it is asked again",
            explanation=f"{function} was called twice with the same arguments ({before.label()}) and answered "
            f"differently{answered} ({inputs} asked again answered so). A call's answer must depend on its "
            "arguments only: something is kept from one call to the next (a global or a cache, a default "
            "argument that grows, an input changed in place).",
            notes=notes,
            kind=DiagnosisKind.SHAPE,
        )
    ]


def asked_again(function: str, notes: str, label: str, graded: Any, again: Any) -> Diagnosis:
    """The diagnosis of a public call that answered ``graded`` when graded and ``again`` when it was asked
    again in another process (the counterexamples' search asks its start again first)."""
    return Diagnosis(
        id=ID,
        function=function,
        title="answers the same call differently when it is asked again",
        explanation=f"{function} answered {judge.shown(graded, 80)} when graded and {judge.shown(again, 80)} "
        f"when the same call ({label}) was asked again in another process. A call's answer must depend on its "
        "arguments only: something is kept from one call to the next (a global or a cache, a default argument "
        "that grows, an input changed in place).",
        notes=notes,
        kind=DiagnosisKind.SHAPE,
    )
