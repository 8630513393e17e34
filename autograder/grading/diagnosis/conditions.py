"""Separating conditions: the simplest feature of the inputs that tells a function's failing cases
from its passing ones ("fails exactly on the cases with gain='exp'; every case without it
passes"), with what the contract says of such cases (the feature's hint for the function, naming
only the function's own tuning parameters: its record's ``takes``). A condition states what is
observed, exactly: it holds of every failing and every passing case, by construction. Features
come from ``lab.features``; nothing here knows the expected values, so a condition never reveals
one.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from autograder.grading.results import Diagnosis, DiagnosisKind
from autograder.labkit.lab import Lab

MAX_FEATURES = 12  # features tried in pairs (the most common among the failing cases)


def separating(lab: Lab, cases: list[tuple[frozenset[str], bool, str]]) -> tuple[str, tuple[str, ...]] | None:
    """``(how, feature ids)`` such that exactly the failing cases (``True``) have them: ``how`` is
    ``one`` (a feature), ``both`` (two features together), ``either`` (one of two) or ``without``
    (exactly the passing cases have the feature); None when no
    condition separates them or when nothing (or everything) fails."""
    failing, passing = _split(cases)
    if not failing or not passing:
        return None
    order = _order(lab, failing)
    alone = _alone(lab, order, failing, passing)
    return alone if alone is not None else _paired(order, failing, passing)


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


FEW = 2  # failing cases that are named one by one when no feature separates them


def diagnosis(lab: Lab, function: str, cases: list[tuple[frozenset[str], bool, str]]) -> Diagnosis | None:
    """The separating condition of a function's cases (``(features, failed, label)``) as a
    diagnosis, or None. When no feature separates a few failing cases from many passing ones,
    the failing cases themselves are the condition."""
    found = separating(lab, cases)
    if found is None:
        return _few(lab, function, cases)
    how, ids = found
    phrases = [lab.features.FEATURES[feature].phrase for feature in ids]
    hints = [hint(lab, function, feature) for feature in ids]
    failing = sum(case[1] for case in cases)
    # the title is the same for every submission it fits (the class report groups by it); the count is below
    if how == "without":
        title = f"fails on every case but those with {phrases[0]}"
        explanation = f"{failing} of its {len(cases)} cases fail; only those with {phrases[0]} pass."
    else:
        joined = {"one": phrases[0], "both": " and ".join(phrases), "either": " or with ".join(phrases)}[how]
        title = f"fails exactly on the cases with {joined}"
        fail, them = ("That one case fails", "it") if failing == 1 else (f"Those {failing} cases fail", "them")
        explanation = (
            f"{fail} and every other case passes. What the contract says of {them}: {'; '.join(dict.fromkeys(hints))}."
        )
    return Diagnosis(
        id=f"condition-{how}-{'-'.join(ids)}",
        function=function,
        title=title,
        explanation=explanation,
        notes=lab.notes_part(function),
        kind=DiagnosisKind.CONDITION,
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
