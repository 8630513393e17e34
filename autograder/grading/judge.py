"""Judging one call: the child's tagged answer against the expected value, by value.

Values arrive in the child's tagged JSON (``sandbox/child/values.py``): numbers, sequences and
mappings as their base values, whatever their type (a namedtuple, an OrderedDict, numpy's
numbers and arrays, Fraction, Decimal). Decoded here, they pass when they equal the expected
value: numbers within 1e-6 (absolute or relative), sequences item by item, mappings key by key.
What is not an honest value where one is due (a bool, a string, NaN, inf, None, an object whose
class redefines how it compares or converts) fails with a message saying what came back and what
the contract asks for.
"""

from __future__ import annotations

import json
from typing import Any

from autograder.errors import UsageError
from autograder.grading.results import CaseStatus
from autograder.grading.vocabulary import NOT_A_STRING
from autograder.labkit.case import RAISES
from autograder.sandbox.channel import Outcome, OutcomeStatus

NUMBER_TYPES = ("int", "float")
SEQUENCE_TYPES = ("list", "tuple")
MAX_DEPTH = 6  # nesting kept of a returned value (the child encodes no deeper)


class Unacceptable(UsageError, ValueError):
    """A returned value of a kind the contract does not allow."""


def number(encoded: Any) -> float:
    """The number in an encoded value; ``Unacceptable`` says what came back instead."""
    kind = encoded.get("type") if isinstance(encoded, dict) else None
    if kind in NUMBER_TYPES:
        value = encoded.get("value")
        if isinstance(value, str):
            raise Unacceptable(f"returned {value}, not a number")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Unacceptable("returned something that is not a number")
        try:
            return float(value)
        except OverflowError:
            raise Unacceptable("returned a number too large to compare") from None
    raise Unacceptable(f"returned {describe(encoded)}")


_PLAIN = {
    "float": "a plain number, e.g. float(x)",
    "int": "a plain number, e.g. int(x)",
    "list": "a plain list",
    "tuple": "a plain tuple",
    "dict": "a plain dict",
    "str": "a plain str",
}


def describe(encoded: Any) -> str:
    """A short description of what a call returned, for messages."""
    if not isinstance(encoded, dict):
        return "an unreadable value"
    kind = encoded.get("type")
    named = f" ({encoded['name']})" if isinstance(encoded.get("name"), str) else ""
    if kind == "None":
        return "None (is a return statement missing?)"
    if kind == "bool":
        return f"the bool {encoded.get('value')}{named}"
    if kind == "str":
        return f"the string {str(encoded.get('value'))[:60]!r}"
    if kind in (*SEQUENCE_TYPES, "dict"):
        return f"a {kind} of {encoded.get('length')} items{named}"
    if kind in NUMBER_TYPES:
        return f"the number {encoded.get('value')}{named}"
    if kind == "other":
        bases = [base for base in encoded.get("bases") or [] if isinstance(base, str)]
        redefines = [name for name in encoded.get("redefines") or [] if isinstance(name, str)]
        if bases and redefines:
            return (
                f"an object of type {encoded.get('name')}, a {bases[0]} subclass that redefines "
                f"{', '.join(redefines[:4])}: its value cannot be read; return {_PLAIN.get(bases[0], 'a plain value')}"
            )
        made = f", a subclass of {bases[0]}" if bases else ""
        return f"an object of type {encoded.get('name')}{made}"
    if kind == "too-deep":
        return "a value nested too deeply to read"
    if kind == "too-large":
        return f"a value of {encoded.get('bytes')} bytes, far larger than any answer of this function"
    return f"a value of type {kind}"


def readable(encoded: Any, depth: int = 0) -> bool:
    """Can the value be read (numbers, bools, strings, None, and lists, tuples and dicts of them), so
    that two equal ``plain`` forms are equal answers? An object the child could only name (a
    generator, a set, a subclass that redefines its value), or one too deep or too large, cannot."""
    if not isinstance(encoded, dict) or depth > MAX_DEPTH:
        return False
    kind = encoded.get("type")
    if kind in (*NUMBER_TYPES, "bool", "str", "None"):
        return True
    items = encoded.get("items")
    if kind in SEQUENCE_TYPES and isinstance(items, list):
        return all(readable(item, depth + 1) for item in items)
    if kind == "dict" and isinstance(items, list):
        return all(
            isinstance(pair, list) and len(pair) == 2 and readable(pair[0], depth + 1) and readable(pair[1], depth + 1)
            for pair in items
        )
    return False


def plain(encoded: Any, depth: int = 0) -> Any:
    """The encoded value as plain JSON data (for display and storage); never raises."""
    try:
        if not isinstance(encoded, dict) or depth > MAX_DEPTH:
            return None
        kind = encoded.get("type")
        if kind in NUMBER_TYPES:
            value = encoded.get("value")
            return value if isinstance(value, (int, float, str)) else None
        if kind in ("bool", "str"):
            return str(encoded.get("value"))[:2000] if kind == "str" else bool(encoded.get("value"))
        items = encoded.get("items")
        if kind in SEQUENCE_TYPES and isinstance(items, list):
            return [plain(item, depth + 1) for item in items[:50]]
        if kind == "dict" and isinstance(items, list):
            return {
                _key(pair[0], depth + 1)[:200]: plain(pair[1], depth + 1)
                for pair in items[:50]
                if isinstance(pair, list) and len(pair) == 2
            }
        if kind == "None":
            return None
        return f"<{describe(encoded)}>"
    except (TypeError, ValueError, RecursionError):
        return None


def _key(encoded: Any, depth: int) -> str:
    """A dict key as plain data: a string as itself, anything else as its JSON after ``NOT_A_STRING``."""
    value = plain(encoded, depth)
    if isinstance(value, str) and _kind(encoded) == "str":
        return value
    try:
        return NOT_A_STRING + json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return NOT_A_STRING + str(value)


SHOWN = 1000  # characters of JSON kept of one answer in the results (what feedback shows of it)
MESSAGE = 500  # characters kept of one verdict's message


def shown(encoded: Any, limit: int = SHOWN) -> str:
    """The answer as plain JSON data, when it fits in ``limit`` characters; otherwise a short
    description of it (a submission cannot make its results, and the pages rendered from them, big)."""
    value = plain(encoded)
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return f"<{describe(encoded)}>"
    return value if size <= limit else f"<{describe(encoded)}, too long to show>"


def capped(message: str, limit: int = MESSAGE) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


def close(actual: float, expected: float, tolerance: float) -> bool:
    """Is ``actual`` within ``tolerance`` of ``expected``, absolute or relative (the lab's
    ``Lab.tolerance``)?"""
    return abs(actual - expected) <= tolerance or abs(actual - expected) <= tolerance * abs(expected)


def difference(encoded: Any, expected: Any, returns: str = "", *, tolerance: float) -> str | None:
    """None when ``encoded`` equals ``expected`` (within ``tolerance``, ``close``'s), else why not;
    anything the grader cannot read is simply not equal (the child's JSON is never trusted to be well
    formed). ``returns``: what the function returns, in the contract's words (for a wrong kind of value)."""
    try:
        return _compare(encoded, expected, returns, tolerance)
    except (TypeError, ValueError, OverflowError, RecursionError, AttributeError, KeyError):
        return "returned a value the grader cannot read"


def _compare(encoded: Any, expected: Any, returns: str, tolerance: float) -> str | None:
    """``difference``'s answer, by the kind of value expected (in this order: a number, bools too;
    a string; a list or tuple; a dict)."""
    if isinstance(expected, (bool, int, float)):
        return _compare_number(encoded, expected, returns, tolerance)
    if isinstance(expected, str):
        return _compare_string(encoded, expected)
    if isinstance(expected, (list, tuple)):
        return _compare_sequence(encoded, expected, returns, tolerance)
    if isinstance(expected, dict):
        return _compare_mapping(encoded, expected, returns, tolerance)
    return f"cannot compare with {expected!r}"


def _kind(encoded: Any) -> Any:
    """The type an encoded value says it has (None when it is not an encoded value)."""
    return encoded.get("type") if isinstance(encoded, dict) else None


def _compare_number(encoded: Any, expected: bool | int | float, returns: str, tolerance: float) -> str | None:
    """A number within the tolerance of ``expected`` (what is not an honest number never is)."""
    try:
        value = number(encoded)
    except Unacceptable as problem:
        return f"{problem}, expected {returns or 'a number'}"
    if close(value, float(expected), tolerance):
        return None
    shown = int(value) if encoded.get("type") == "int" and value.is_integer() else value
    return f"returned {shown!r}, expected {expected!r}"


def _compare_string(encoded: Any, expected: str) -> str | None:
    """The very string ``expected``."""
    if _kind(encoded) != "str":
        return f"returned {describe(encoded)}, expected the string {expected!r}"
    return None if encoded.get("value") == expected else f"returned {encoded.get('value')!r}, expected {expected!r}"


def _compare_sequence(
    encoded: Any, expected: list[Any] | tuple[Any, ...], returns: str, tolerance: float
) -> str | None:
    """A list or tuple of as many items as ``expected``, each equal to its own (the first that
    differs is said)."""
    if _kind(encoded) not in SEQUENCE_TYPES:
        return f"returned {describe(encoded)}, expected {returns or f'a list or tuple of {len(expected)}'}"
    items = encoded.get("items")
    if not isinstance(items, list) or encoded.get("length") != len(items) or len(items) != len(expected):
        return f"returned {encoded.get('length')} items, expected {len(expected)}: {plain(encoded)!r}"
    for position, (item, want) in enumerate(zip(items, expected)):
        wrong = _compare(item, want, "", tolerance)
        if wrong:
            return f"item {position}: {wrong} (returned {plain(encoded)!r}, expected {list(expected)!r})"
    return None


def _compare_mapping(encoded: Any, expected: dict[Any, Any], returns: str, tolerance: float) -> str | None:
    """A dict of string keys, the keys of ``expected``, each value equal to its own (the first
    key, in sorted order, whose value differs is said)."""
    if _kind(encoded) != "dict":
        return f"returned {describe(encoded)}, expected {returns or f'a dict of {len(expected)} items'}"
    items = encoded.get("items")
    if not isinstance(items, list) or encoded.get("length") != len(items):
        return "returned a dict the grader cannot read"
    got = _keyed(items)
    if isinstance(got, str):
        return got
    if set(got) != set(expected) or len(items) != len(expected):
        return _keys_difference(got, expected)
    for key in sorted(expected):
        wrong = _compare(got[key], expected[key], "", tolerance)
        if wrong:
            return f"for {key!r}: {wrong}"
    return None


def _keyed(items: list[Any]) -> dict[str, object] | str:
    """An encoded dict's (key, value) pairs as a dict by key, or why not: a key that is not a string."""
    got: dict[str, object] = {}
    for key, value in items:
        if not isinstance(key, dict) or key.get("type") != "str" or not isinstance(key.get("value"), str):
            return f"returned a dict with a key that is {describe(key)}, expected query ids (strings)"
        got[key["value"]] = value
    return got


def _keys_difference(got: dict[str, object], expected: dict[Any, Any]) -> str:
    """How the returned keys differ from those expected: the first few of each, missing and extra."""
    missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
    return (
        f"returned keys {sorted(got)[:10]}, expected {sorted(expected)[:10]}"
        + (f" (missing {missing[:5]})" if missing else "")
        + (f" (extra {extra[:5]})" if extra else "")
    )


def wants_error(expected: Any) -> bool:
    """Is ``expected`` the outcome of a call that must raise (``cases.raises``)?"""
    return isinstance(expected, dict) and set(expected) == {RAISES}


#: What a call that neither returned nor raised makes of its case: with ``verdict``, the one mapping
#: from the sandbox's ``OutcomeStatus`` to ``CaseStatus`` (a call that returned or raised is judged
#: against its expected answer; one of a file that did not import is ``NOT_IMPORTED``).
UNANSWERED = {
    OutcomeStatus.TIMEOUT: CaseStatus.TIMEOUT,
    OutcomeStatus.CRASH: CaseStatus.CRASH,
    OutcomeStatus.NOT_RUN: CaseStatus.NOT_RUN,
}


def answered(outcome: Outcome) -> bool:
    """Did the call return or raise, so that its case tells what the code did (not only what
    became of its process)?"""
    return outcome.status not in UNANSWERED


def verdict(
    outcome: Outcome, expected: Any, returns: str = "", imported: bool = True, *, tolerance: float
) -> tuple[CaseStatus, str]:
    """``(status, message)`` of one call against its expected value or expected error;
    ``returns`` names, in the contract's words, what the function returns; ``imported``: whether
    the call's graded file imported (a call of a file that did not is not run for that reason);
    ``tolerance``: the lab's (``close``)."""
    must_raise = wants_error(expected)
    if outcome.status == OutcomeStatus.VALUE:
        if must_raise:
            return CaseStatus.FAIL, f"returned {plain(outcome.value)!r}, expected it to raise {expected[RAISES]}"
        problem = difference(outcome.value, expected, returns, tolerance=tolerance)
        return (CaseStatus.PASS, "") if problem is None else (CaseStatus.FAIL, problem)
    if outcome.status == OutcomeStatus.ERROR:
        error = outcome.error or {}
        if must_raise and expected[RAISES] in error.get("mro", []):
            return CaseStatus.PASS, ""
        raised = f"raised {error.get('type', 'an exception')}: {error.get('message', '')}".rstrip(": ")
        if must_raise:
            return CaseStatus.FAIL, f"{raised}; expected {expected[RAISES]}"
        return CaseStatus.ERROR, raised
    status = UNANSWERED.get(outcome.status, CaseStatus.NOT_RUN)
    if status == CaseStatus.TIMEOUT:
        return status, f"did not finish in time: {outcome.detail}"
    if status == CaseStatus.CRASH:
        return status, f"the process died during this call: {outcome.detail}"
    return status if imported else CaseStatus.NOT_IMPORTED, outcome.detail or "not run"
