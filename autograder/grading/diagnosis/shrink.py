"""The smallest input on which a function is still wrong (in the parent, on public inputs only).

From one public case a function fails, ``steps`` makes smaller cases, hypothesis-style: whole runs
of items dropped from each ranking, set of judgments, run or score table (halves first, then
quarters, down to single items, as delta debugging does), grades lowered (to 0, to 1, by one),
integer arguments and the cut-offs k, rel and n lowered (to 1, halved, by one), and, last, the ids
renamed to the shortest names that keep their order. A candidate is kept when the function is still
wrong on it *the same way* (a wrong value again, or the same exception again) and the contract
allows it (the reference answers it as it answered the start: with a value, or by raising).
Every pass runs again until none finds a smaller case.

``steps`` is a generator: it yields each candidate (the start first, to see the mistake again),
is sent what the student's function did on it (an ``Outcome``), and returns the ``Shrunk`` case,
re-checked (the smallest case is asked once more, and must fail the same way), or None. It never
asks more than ``budget`` times: who runs the calls (``grading/counterexamples.py`` through the
sandbox; the tests and ``tools/counterexamples.py`` in this process, on trusted code) drives it.
The expected values are the lab's own answers (``lab.registry.answers``), computed here.

What the search varies is a ``Space`` (the candidates one step from an input, an input's key, the
input as shown): a function's cases here (``CASES``); the run writer's scenarios in
``shrink_run.py``, through the same ``steps`` and its rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from autograder.grading import inputs, judge
from autograder.grading.results import CaseStatus
from autograder.labkit.case import CONTRACT_TAGS, Case, valid_tuning
from autograder.labkit.kinds import TUNING
from autograder.labkit.lab import Lab
from autograder.sandbox.channel import Outcome, OutcomeStatus

BUDGET = 200  # calls of the student's function, at most, per counterexample
#: Where one value sits inside a case: ("args", index, key or index...) or ("kwargs", name).
Path = tuple[Any, ...]


def size(case: Case) -> int:
    """How big a case is: the documents and judgments in it (every item of a list and every entry of
    a mapping holding plain values, at any depth; not the integers k, n or a collection's size)."""
    return sum(_items(arg) for arg in case.args) + sum(_items(value) for value in case.kwargs.values())


def _items(value: Any) -> int:
    value = _inside(value)
    if isinstance(value, list):
        return sum(1 if not isinstance(item, (list, dict)) else _items(item) for item in value)
    if isinstance(value, dict) and not _atomic(value):
        return sum(1 if not isinstance(item, (list, dict)) else _items(item) for item in value.values())
    return 0


def _atomic(value: dict[str, Any]) -> bool:
    """A tag the child builds something from (a measure, a search function): never shrunk."""
    return len(value) == 1 and next(iter(value)).startswith("$") and next(iter(value)) not in CONTRACT_TAGS


def _inside(value: Any) -> Any:
    """The data inside a contract tag (a tuple's items, a read-only mapping's), else the value."""
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in CONTRACT_TAGS:
        return next(iter(value.values()))
    return value


def failure(outcome: Outcome | None, expected: Any, returns: str, tolerance: float) -> str | None:
    """How the function failed on a case: ``"wrong"`` (it returned a wrong value), ``"raised X"``
    (it raised X where something else was due), or None (it passed, or neither returned nor
    raised: a crash or a timeout shows no mistake to shrink)."""
    if outcome is None or not judge.answered(outcome):
        return None
    status, _ = judge.verdict(outcome, expected, returns, tolerance=tolerance)
    if status == CaseStatus.PASS:
        return None
    if outcome.status == OutcomeStatus.ERROR:
        return f"raised {(outcome.error or {}).get('type', '?')}"
    return "wrong"


class Answers(Protocol):
    """The right answers a search compares with: an input's (``expected``), and how a function's
    outcome on it fails (``failure``: None when it does not)."""

    def expected(self, case: Any) -> Any: ...

    def failure(self, case: Any, outcome: Outcome | None) -> str | None: ...


class Reference:
    """The lab's right answers of one function's cases, computed once per distinct input."""

    def __init__(self, lab: Lab, function: str):
        self.lab, self.function = lab, function
        self.returns = lab.returns.get(function, "")
        self.tolerance = lab.tolerance
        self.known: dict[str, Any] = {}

    def expected(self, case: Case) -> Any:
        key = _key(case)
        if key not in self.known:
            self.known[key] = self.lab.registry.answers(self.function, [case], inputs.resolve)[0]
        return self.known[key]

    def failure(self, case: Case, outcome: Outcome | None) -> str | None:
        return failure(outcome, self.expected(case), self.returns, self.tolerance)


def _key(case: Case) -> str:
    return json.dumps([case.args, case.kwargs], sort_keys=True, default=repr)


@dataclass(frozen=True)
class Shrunk:
    """The smallest case found on which the function is still wrong the same way."""

    case: Any  # a ``Case`` (a run writer's scenario for ``shrink_run``)
    expected: Any
    outcome: Outcome  # what the function did on it (its last answer)
    start: Any  # the public case it came from
    calls: int  # calls of the function it took
    stopped_early: bool  # the budget ran out before no pass found a smaller case
    how: str  # how it fails ("wrong", "raised X")


@dataclass
class Progress:
    """How far a search has come: the smallest case yet on which the function failed the same way
    (and what it answered there), the calls asked so far. Who drives ``steps`` may stop it early
    and keep this (``grading/counterexamples.py``, when its time runs out)."""

    best: Any  # a ``Case`` (a run writer's scenario for ``shrink_run``)
    outcome: Outcome | None = None
    calls: int = 0
    how: str | None = None
    seen: set[str] = field(default_factory=set)


def _admissible(progress: Progress, reference: Answers, candidate: Any, start_raises: bool, space: Space) -> bool:
    """Is ``candidate`` new and an input the contract allows, answered as the start was (a value,
    or an error)?"""
    key = space.key(candidate)
    if key in progress.seen:
        return False
    progress.seen.add(key)
    try:
        expected = reference.expected(candidate)
    except Exception:  # the lab's answers cannot take it: not an input the contract allows
        return False
    return judge.wants_error(expected) == start_raises


def steps(
    start: Any, reference: Answers, budget: int = BUDGET, progress: Progress | None = None, space: Space | None = None
) -> Generator[Any, Outcome | None, Shrunk | None]:
    """The candidates, one at a time (see the module's docstring); returns the re-checked smallest,
    or None when the start is not wrong again the same way, a call crashed or timed out, or the
    re-check passed (answers that change between calls show nothing). ``progress``: where the
    search stands, for whoever must stop it early; ``space``: what it varies (``CASES``)."""
    space = space or CASES
    progress = progress if progress is not None else Progress(best=start)
    progress.best = space.clean(start)
    first = yield start
    progress.calls = 1
    how = reference.failure(start, first)
    if how is None or first is None:
        return None  # not wrong again: its answers change between calls, or it crashed this time
    progress.how, progress.outcome = how, first
    progress.seen.add(space.key(start))
    start_raises = judge.wants_error(reference.expected(start))
    stopped, changed = False, True
    while changed and not stopped:
        changed = False
        for candidate in space.candidates(progress.best):
            if progress.calls >= budget - 1:  # one call is kept for the re-check
                stopped = True
                break
            if not _admissible(progress, reference, candidate, start_raises, space):
                continue
            progress.calls += 1
            answer = yield candidate
            if answer is None or not judge.answered(answer):
                return None  # a crash or a timeout: nothing more is asked of it
            if reference.failure(candidate, answer) == how:
                progress.best, progress.outcome, changed = candidate, answer, True
                break  # the passes start again from the smaller case
    again = yield progress.best  # re-checked: still wrong the same way
    progress.calls += 1
    if reference.failure(progress.best, again) != how or again is None:
        return None
    return shrunk(progress, reference, start, again, stopped)


def shrunk(progress: Progress, reference: Answers, start: Any, outcome: Outcome, stopped: bool) -> Shrunk:
    """Where ``progress`` stands, as a result (``outcome``: the function's answer on its best case)."""
    return Shrunk(
        case=progress.best,
        expected=reference.expected(progress.best),
        outcome=outcome,
        start=start,
        calls=progress.calls,
        stopped_early=stopped,
        how=progress.how or "",
    )


def run(
    start: Any,
    reference: Answers,
    ask: Callable[[Any], Outcome | None],
    budget: int = BUDGET,
    space: Space | None = None,
) -> Shrunk | None:
    """``steps`` driven by ``ask`` (a case -> what the function did on it), one call after another."""
    search = steps(start, reference, budget, space=space)
    try:
        candidate = next(search)
        while True:
            candidate = search.send(ask(candidate))
    except StopIteration as stop:
        found: Shrunk | None = stop.value
        return found


def _clean(case: Case) -> Case:
    """The case as the counterexample shows it (its own id and words: it is no longer the start)."""
    return replace(case, id=f"{case.id}-shrunk", description="the smallest failing input found", hint="")


@dataclass(frozen=True)
class Space:
    """What a search varies: the smaller inputs one step from an input (``candidates``, smallest
    first, in a fixed order), an input's key (each is asked once) and the input as its
    counterexample shows it (``clean``)."""

    candidates: Callable[[Any], Iterator[Any]]
    key: Callable[[Any], str]
    clean: Callable[[Any], Any]


# ---------------------------------------------------------------- the candidates, smallest first


def _candidates(case: Case) -> Iterator[Case]:
    """Every smaller case one step from ``case``, in a fixed order: items dropped, integers lowered,
    ids renamed."""
    for path in _containers(case):
        yield from _drops(case, path)
    for path, value in _integers(case):
        for lower in _lower(path, value):
            yield _set(case, path, lower)
    renamed = _renamed(case)
    if renamed is not None:
        yield renamed


def _containers(case: Case) -> list[Path]:
    """The paths of the lists and mappings of a case, outer ones first."""
    found: list[Path] = []

    def visit(value: Any, path: Path) -> None:
        inner = _inside(value)
        if inner is not value:
            path = path + (next(iter(value)),)
        if isinstance(inner, list):
            found.append(path)
            for index, item in enumerate(inner):
                visit(item, path + (index,))
        elif isinstance(inner, dict) and not _atomic(inner):
            found.append(path)
            for key, item in inner.items():
                visit(item, path + (key,))

    for index, arg in enumerate(case.args):
        visit(arg, ("args", index))
    return found


def _drops(case: Case, path: Path) -> Iterator[Case]:
    """``case`` with runs of the container's items dropped: halves first, down to single items."""
    items = _get(case, path)
    keys = list(range(len(items))) if isinstance(items, list) else list(items)
    chunk = len(keys)
    while chunk >= 1:
        for begin in range(0, len(keys), chunk):
            dropped = set(keys[begin : begin + chunk])
            if isinstance(items, list):
                smaller: Any = [item for index, item in enumerate(items) if index not in dropped]
            else:
                smaller = {key: value for key, value in items.items() if key not in dropped}
            yield _set(case, path, smaller)
        chunk //= 2


def _integers(case: Case) -> list[tuple[Path, int]]:
    """The integers worth lowering: grades (a mapping's values), positional integers (a collection's
    size) and the tuning parameters k, rel and n (each while it is valid: lowered, never below 1;
    an invalid one is what the case is about)."""
    found: list[tuple[Path, int]] = []
    for path in _containers(case):
        items = _get(case, path)
        if isinstance(items, dict):
            found += [(path + (key,), value) for key, value in items.items() if _integer(value)]
    found += [(("args", index), arg) for index, arg in enumerate(case.args) if _integer(arg)]
    found += [
        (("kwargs", key), value)
        for key, value in case.kwargs.items()
        if key in TUNING and _integer(value) and valid_tuning({key: value})
    ]
    return found


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _lower(path: Path, value: int) -> list[int]:
    """Smaller values to try: toward 1 for a tuning parameter, toward 0 for the rest."""
    floor = 1 if path[0] == "kwargs" else 0
    if value < 0:
        return [0]
    return list(dict.fromkeys(v for v in (floor, 1, value // 2, value - 1) if floor <= v < value))


def _renamed(case: Case) -> Case | None:
    """``case`` with every id (a list's strings, a mapping's keys) renamed to the shortest name
    that keeps the ids' order ("a", "b"... or "1", "2"... where every id is a number), or None when
    that changes nothing or there are too many ids."""
    ids: set[str] = set()

    def collect(value: Any) -> None:
        inner = _inside(value)
        if isinstance(inner, list):
            for item in inner:
                if isinstance(item, str):
                    ids.add(item)
                else:
                    collect(item)
        elif isinstance(inner, dict) and not _atomic(inner):
            for key, item in inner.items():
                ids.add(key)
                collect(item)

    for arg in case.args:
        collect(arg)
    ordered = sorted(ids)
    if not ordered or len(ordered) > 26:
        return None
    numeric = all(name.isdigit() for name in ordered) and len(ordered) <= 9
    names = [str(n + 1) if numeric else chr(ord("a") + n) for n in range(len(ordered))]
    mapping = dict(zip(ordered, names))
    if all(old == new for old, new in mapping.items()):
        return None

    def rename(value: Any) -> Any:
        inner = _inside(value)
        if inner is not value:
            return {next(iter(value)): rename(inner)}
        if isinstance(value, list):
            return [mapping.get(item, item) if isinstance(item, str) else rename(item) for item in value]
        if isinstance(value, dict) and not _atomic(value):
            return {mapping[key]: rename(item) for key, item in value.items()}
        return value

    return replace(case, args=tuple(rename(arg) for arg in case.args))


def _get(case: Case, path: Path) -> Any:
    value: Any = case.args if path[0] == "args" else case.kwargs
    for step in path[1:]:
        value = value[step]
    return value


def _set(case: Case, path: Path, new: Any) -> Case:
    """``case`` with the value at ``path`` replaced (copies along the path; the rest shared)."""

    def put(value: Any, rest: Path) -> Any:
        if not rest:
            return new
        step = rest[0]
        if isinstance(value, list):
            return [put(item, rest[1:]) if index == step else item for index, item in enumerate(value)]
        return {key: put(item, rest[1:]) if key == step else item for key, item in value.items()}

    if path[0] == "args":
        return replace(case, args=tuple(put(list(case.args), path[1:])))
    return replace(case, kwargs=put(dict(case.kwargs), path[1:]))


#: A function's cases: its rankings, judgments and tables shrunk, its integers lowered, its ids renamed.
CASES = Space(candidates=_candidates, key=_key, clean=_clean)
