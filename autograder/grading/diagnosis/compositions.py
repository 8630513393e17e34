"""A small change inside a measure's definition, found by fitting its parts (issue 32, item 3).

A lab may describe a measure as a composition of named parts (Lab 05: ``lab/misconceptions/parts.py``,
handed as the catalogue's ``PARTS``): for each part, the notes' choice and a few plausible alternatives,
and a ``build`` that makes the measure from one choice per part. When no catalogued misconception explains
a function's answers, the compositions with one part changed are tried, then those with two: a composition
*fits* when it explains every judged case as a misconception's variant must (``answers.explains``), and the
notes' own composition does not. When some fit, the parts every fitting composition changes are said (with
the alternative when they all agree on it); when they share none, nothing is said. Only the cases the
grader already has are read: no call is added, no hidden value is shown.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autograder.grading.vocabulary import Diagnosis

if TYPE_CHECKING:
    from autograder.grading.diagnosis import observed

NOTES = "notes"  # the key of the notes' choice of every part
PREFIX = "parts-"  # the ids of the diagnoses said here
MOST_CHANGED = 2  # parts changed at once, at most: the search stays small (one bug is one or two parts)

#: ``explains(item, function, cases)``: the checks where a variant shows and the failing cases left aside, or None
Explains = Callable[[Any, str, "list[observed.Observed]"], "tuple[set[str], int] | None"]


@dataclass(frozen=True)
class Candidate:
    """A composition of a measure's parts, as the engine's fit reads a misconception."""

    id: str
    changed: tuple[tuple[str, str], ...]  # (part, choice) of the parts that are not the notes'
    variants: dict[str, Any] = field(hash=False, compare=False)
    arguments: bool = False  # a composition speaks of valid arguments only


def candidates(function: str, measure: Mapping[str, Any], most: int = MOST_CHANGED) -> Iterator[Candidate]:
    """The compositions of ``function`` with 1, then 2 (up to ``most``) parts changed, in the table's order."""
    parts: Mapping[str, Mapping[str, Any]] = measure["parts"]
    names = list(parts)
    for size in range(1, most + 1):
        for chosen in itertools.combinations(names, size):
            alternatives = [[key for key in parts[name]["choices"] if key != NOTES] for name in chosen]
            for picks in itertools.product(*alternatives):
                yield composed(function, measure, tuple(zip(chosen, picks)))


def composed(function: str, measure: Mapping[str, Any], changed: tuple[tuple[str, str], ...]) -> Candidate:
    """The composition of ``function`` whose ``changed`` parts take those choices, the others the notes'."""
    choice = dict.fromkeys(measure["parts"], NOTES) | dict(changed)
    key = ",".join(f"{name}={pick}" for name, pick in changed) or NOTES
    return Candidate(id=f"{PREFIX}{function}:{key}", changed=changed, variants={function: measure["build"](choice)})


@dataclass
class Fit:
    """What the search found: the fitting compositions and how many it tried."""

    fitting: list[Candidate]
    tried: int
    checks: set[str]


def search(function: str, measure: Mapping[str, Any], cases: list[observed.Observed], explains: Explains) -> Fit:
    """The compositions of ``function`` that explain every judged case, the fewest changed parts first (a
    composition with two parts changed is tried only when none with one fits), among them those leaving
    the fewest failing cases aside."""
    tried = 1  # the notes' own composition
    if explains(composed(function, measure, ()), function, cases) is not None:
        return Fit([], 1, set())  # the notes' composition itself fits: what fails is not in these parts
    best: list[tuple[int, Candidate, set[str]]] = []
    size = 0
    for candidate in candidates(function, measure):
        if best and len(candidate.changed) > size:
            break
        tried += 1
        explained = explains(candidate, function, cases)
        if explained is not None:
            size = len(candidate.changed)
            best.append((explained[1], candidate, explained[0]))
    if not best:
        return Fit([], tried, set())
    fewest = min(aside for aside, _, _ in best)
    kept = [(candidate, checks) for aside, candidate, checks in best if aside == fewest]
    return Fit([candidate for candidate, _ in kept], tried, set().union(*(checks for _, checks in kept)))


def shared(fitting: list[Candidate]) -> list[tuple[str, str | None]]:
    """The parts every fitting composition changes, each with its choice when they all agree on it (else None)."""
    if not fitting:
        return []
    parts = set.intersection(*({name for name, _ in candidate.changed} for candidate in fitting))
    said = []
    for name, _ in fitting[0].changed:
        if name in parts:
            picks = {dict(candidate.changed)[name] for candidate in fitting}
            said.append((name, picks.pop() if len(picks) == 1 else None))
    return said


def diagnosis(function: str, measure: Mapping[str, Any], fitting: list[Candidate]) -> Diagnosis | None:
    """The words for what every fitting composition shares, or None when they share no part."""
    said = shared(fitting)
    if not said:
        return None
    parts: Mapping[str, Mapping[str, Any]] = measure["parts"]
    name = measure["measure"]
    changes, notes = [], []
    for part, pick in said:
        words = parts[part]["words"]
        if pick is None:
            changes.append(f"{words}: not the notes' ({parts[part]['notes']})")
        else:
            changes.append(f"{words}: {parts[part]['choices'][pick]}")
        notes.append(f"{words}: {parts[part]['notes']}")
    several = f" ({len(fitting)} such changes fit your answers; what they share is said)" if len(fitting) > 1 else ""
    count = "one change" if len(said) == 1 else f"{len(said)} changes"
    title = f"your answers are {name} as the notes define it but for {count}, " + "; ".join(changes)
    these = "this part" if len(said) == 1 else "these parts"
    explanation = (
        f"Every judged answer of {function} is reproduced by {name} with {these} changed and the rest as the "
        f"notes state it{several}. The notes say, for {'; '.join(notes)}."
    )
    key = ",".join(f"{part}={pick or '*'}" for part, pick in said)
    return Diagnosis(
        id=f"{PREFIX}{function}:{key}", function=function, title=title, explanation=explanation, notes=measure["notes"]
    )
