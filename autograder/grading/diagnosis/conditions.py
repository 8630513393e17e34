"""Separating conditions: the simplest feature of the inputs that tells a function's failing cases
from its passing ones ("fails exactly on the cases with gain='exp'; every case without it
passes"), with what the contract says of such cases (the feature's hint for the function, naming
only the function's own tuning parameters: its record's ``takes``). A condition states what is
observed, exactly: it holds of every failing and every passing case, by construction. Features
come from ``lab.features``; nothing here knows the expected values, so a condition never reveals
one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from autograder.grading.results import Diagnosis, DiagnosisKind
from autograder.labkit.lab import Lab

MAX_FEATURES = 12  # features tried in pairs (the most common among the failing cases)


def separating(
    lab: Lab, cases: list[tuple[frozenset[str], bool, str]], function: str = ""
) -> tuple[str, tuple[str, ...]] | None:
    """``(how, feature ids)`` such that exactly the failing cases (``True``) have them: ``how`` is
    ``one`` (a feature), ``both`` (two features together), ``either`` (one of two) or ``without``
    (exactly the passing cases have the feature); else ``(concept, (concept id,))`` when exactly the
    failing cases have one of the features of a concept of the lab's notes that governs ``function``;
    None when no condition separates them or when nothing (or everything) fails."""
    failing, passing = _split(cases)
    if not failing or not passing:
        return None
    order = _order(lab, failing)
    alone = _alone(lab, order, failing, passing)
    if alone is not None:
        return alone
    return _paired(order, failing, passing) or _by_concept(lab, function, failing, passing)


Found = list[frozenset[str]]  # the features of each failing (or each passing) case
Test = Callable[[frozenset[str]], bool]  # what a case's features must hold


def _split(cases: list[tuple[frozenset[str], bool, str]]) -> tuple[Found, Found]:
    """The features of the failing cases and those of the passing ones, each in the cases' order."""
    return [case[0] for case in cases if case[1]], [case[0] for case in cases if not case[1]]


def _order(lab: Lab, failing: Found) -> list[str]:
    """The features some failing case has, in the order of the lab's ``features.FEATURES``."""
    return [feature for feature in lab.features.FEATURES if any(feature in found for found in failing)]


def _separates(test: Test, these: Found, others: Found) -> bool:
    """Does ``test`` hold of every case of ``these`` and of none of ``others``?"""
    return all(test(found) for found in these) and not any(test(found) for found in others)


def _with(*ids: str) -> Test:
    """The test "a case has every feature of ``ids``"."""
    return lambda found: all(feature in found for feature in ids)


def _with_either(first: str, second: str) -> Test:
    """The test "a case has ``first`` or ``second``"."""
    return lambda found: first in found or second in found


def _alone(lab: Lab, order: list[str], failing: Found, passing: Found) -> tuple[str, tuple[str, ...]] | None:
    """One feature: the first of ``order`` that exactly the failing cases have (``one``), else the
    first of all features that exactly the passing cases have (``without``)."""
    for feature in order:
        if _separates(_with(feature), failing, passing):
            return "one", (feature,)
    for feature in lab.features.FEATURES:
        if _separates(_with(feature), passing, failing):
            return "without", (feature,)
    return None


def _paired(order: list[str], failing: Found, passing: Found) -> tuple[str, tuple[str, ...]] | None:
    """Two of the ``MAX_FEATURES`` features most common among the failing cases: the first pair
    that exactly the failing cases have together (``both``), else the first that exactly they
    have one of (``either``)."""
    common = sorted(order, key=lambda f: -sum(f in found for found in failing))[:MAX_FEATURES]
    for first, second in combinations(common, 2):
        if _separates(_with(first, second), failing, passing):
            return "both", (first, second)
    for first, second in combinations(common, 2):
        if _separates(_with_either(first, second), failing, passing):
            return "either", (first, second)
    return None


def _concepts(lab: Lab) -> dict[str, Any]:
    """The lab's concepts (``lab.concepts.CONCEPTS``: none for a lab that states none)."""
    found: dict[str, Any] = getattr(lab.concepts, "CONCEPTS", {})
    return found


def _by_concept(lab: Lab, function: str, failing: Found, passing: Found) -> tuple[str, tuple[str, ...]] | None:
    """The first concept governing ``function`` such that exactly the failing cases have one of its
    features (any number of them: a mistake about one definition shows wherever it decides)."""
    for concept in _concepts(lab).values():
        if function in concept.functions and _separates(_with_any(tuple(concept.features)), failing, passing):
            return "concept", (concept.id,)
    return None


def _with_any(ids: tuple[str, ...]) -> Test:
    """The test "a case has one of the features ``ids``"."""
    return lambda found: any(feature in found for feature in ids)


def concept_of(lab: Lab, function: str, how: str, ids: tuple[str, ...]) -> Any:
    """The concept of the lab's notes a separating condition is about: the one concept that governs
    ``function`` and whose features include every feature of the condition (of a ``both``, every one
    but those that only make the answer nonzero: the lab's ``concepts.ENABLING``) (None when there are
    several, or none; None for ``without``: a condition on the passing cases says nothing of what the
    failing ones break)."""
    if how == "concept":
        return _concepts(lab)[ids[0]]
    if how == "without":
        return None
    enabling = tuple(getattr(lab.concepts, "ENABLING", ()))
    telling = tuple(feature for feature in ids if feature not in enabling) if how == "both" else ids
    fitting = [concept for concept in _concepts(lab).values() if concept.governs(function, telling or ids)]
    return fitting[0] if len(fitting) == 1 else None  # two concepts decide these cases: the data cannot choose


DIRECTIONS = {"high": "too high", "low": "too low"}


def _direction(cases: list[tuple[frozenset[str], bool, str]], directions: Sequence[str | None]) -> str:
    """ " Every wrong answer is too high." when the failing cases' answers all err the same way."""
    failing = [direction for case, direction in zip(cases, directions) if case[1]]
    if len(directions) != len(cases) or not failing or len(set(failing)) != 1 or failing[0] not in DIRECTIONS:
        return ""
    return f" Every wrong answer is {DIRECTIONS[failing[0]]}."


FEW = 2  # failing cases that are named one by one when no feature separates them


def diagnosis(
    lab: Lab,
    function: str,
    cases: list[tuple[frozenset[str], bool, str]],
    directions: Sequence[str | None] = (),
    unseen: int = 0,
) -> Diagnosis | None:
    """The separating condition of a function's cases (``(features, failed, label)``) as a
    diagnosis, or None. When the condition is about one of the notes' concepts (``concept_of``), the
    diagnosis names it (its kind ``CONCEPT``): the notes' words and the part that states them; with
    ``directions`` (per case: ``"high"``, ``"low"`` or None, the answer against the expected value), it
    says when every wrong answer errs the same way. When no feature separates a few failing cases from
    many passing ones, the failing cases themselves are the condition. ``unseen``: the function's
    failing cases that are not among ``cases`` (a call that changed its arguments, crashed or timed
    out); a condition says every other case passes, so there is none while any is."""
    if unseen:
        return None
    found = separating(lab, cases, function)
    if found is None:
        return _few(lab, function, cases)
    how, ids = found
    concept = concept_of(lab, function, how, ids)
    failing = sum(case[1] for case in cases)
    fail, them = ("That one case fails", "it") if failing == 1 else (f"Those {failing} cases fail", "them")
    direction = _direction(cases, directions)
    if how == "concept":
        phrases = [lab.features.FEATURES[feature].phrase for feature in concept.features]
        title = f"a mistake about one concept of the notes: {concept.name}"
        explanation = (
            f"It fails exactly on the cases with {' or with '.join(phrases)}, where this decides the answer: "
            f"{fail.lower()} and every other case passes.{direction} What the notes say: {concept.statement}."
        )
        return Diagnosis(
            id=f"condition-concept-{concept.id}",
            function=function,
            title=title,
            explanation=explanation,
            notes=concept.part,
            kind=DiagnosisKind.CONCEPT,
        )
    phrases = [lab.features.FEATURES[feature].phrase for feature in ids]
    hints = [hint(lab, function, feature) for feature in ids]
    # the title is the same for every submission it fits (the class report groups by it); the count is below
    if how == "without":
        title = f"fails on every case but those with {phrases[0]}"
        explanation = f"{failing} of its {len(cases)} cases fail; only those with {phrases[0]} pass."
    else:
        joined = {"one": phrases[0], "both": " and ".join(phrases), "either": " or with ".join(phrases)}[how]
        title = f"fails exactly on the cases with {joined}"
        explanation = (
            f"{fail} and every other case passes.{direction} What the contract says of {them}: "
            f"{'; '.join(dict.fromkeys(hints))}."
        )
    if concept is not None:
        explanation += f" The notes' concept they test ({concept.name}): {concept.statement}."
    return Diagnosis(
        id=f"condition-{how}-{'-'.join(ids)}",
        function=function,
        title=title,
        explanation=explanation,
        notes=concept.part if concept is not None else lab.notes_part(function),
        kind=DiagnosisKind.CONCEPT if concept is not None else DiagnosisKind.CONDITION,
    )


def _few(lab: Lab, function: str, cases: list[tuple[frozenset[str], bool, str]]) -> Diagnosis | None:
    """ "fails only these cases", when a few fail, many pass, and no passing case has a failing one's label."""
    failing = [label for _, failed, label in cases if failed]
    if not 0 < len(failing) <= FEW or len(cases) - len(failing) < 3:
        return None
    labels = sorted(set(failing))
    if any(label in labels for _, failed, label in cases if not failed):
        return None
    title = f"fails only {'this case' if len(labels) == 1 else 'these cases'}: " + "; ".join(
        f"'{label}'" for label in labels
    )
    shared = frozenset.intersection(*[found for found, failed, _ in cases if failed]) & set(lab.features.FEATURES)
    rarest = sorted(shared, key=lambda feature: (sum(feature in found for found, _, _ in cases), feature))
    hints = [hint(lab, function, feature) for feature in rarest[:FEW]]
    explanation = "Every other case passes" + (
        f". What the contract says of {'it' if len(labels) == 1 else 'them'}: {'; '.join(dict.fromkeys(hints))}."
        if hints
        else "."
    )
    return Diagnosis(
        id=f"condition-only-{'-'.join(labels)[:80]}",
        function=function,
        title=title,
        explanation=explanation,
        notes=lab.notes_part(function),
        kind=DiagnosisKind.CONDITION,
    )


def hint(lab: Lab, function: str, feature: str) -> str:
    """What the contract says of the cases with ``feature``, in ``function``'s own parameters."""
    record = lab.records.get(function)
    found: str = lab.features.FEATURES[feature].hint_for(function, record.takes if record else ())
    return found
