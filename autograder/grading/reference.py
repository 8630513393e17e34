"""The hidden reference: expected values generated from ``solutions/`` and ``ir_measures``.

``python -m autograder reference`` writes the lab's ``expected.json`` (``Place.reference``; Lab 05's
``lab/data/expected.json``):

- ``edge``: each hidden edge case's value (or the error it must raise), from the solutions,
  and ``edge_cases``: the digest of the cases' file (``Place.edge_cases``) they were made from;
- ``cranfield``: per system, measure and query, ``ir_measures``' value on Lab 04's runs as the
  reference run writer writes them, and the aggregates.

Generating it twice gives the same bytes (a test proves it). At grading time ``load()``
checks the file against the current Cranfield bundle, so stale values are an error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.errors import UsageError
from autograder.grading import inputs
from autograder.labkit.case import Case, raises
from autograder.labkit.lab import Lab

FORMAT = 2


class ReferenceDataError(UsageError, RuntimeError):
    """The stored reference is missing or does not match the data it must describe."""


def solution_value(lab: Lab, package: ModuleType, case: Case) -> object:
    """What the reference solution gives for ``case``: a JSON value or ``{"raises": name}``."""
    module = getattr(package, lab.functions[case.function].removesuffix(".py"))
    function = getattr(module, case.function)
    try:
        value = function(*[inputs.resolve(arg) for arg in case.args], **case.kwargs)
    except ValueError:
        return raises("ValueError")
    return list(value) if isinstance(value, tuple) else value


def generate(lab: Lab) -> dict[str, Any]:
    """``lab``'s reference, from its solution and its collection."""
    package = lab.solution.load()
    bundle = lab.cranfield.bundle()
    return {
        "format": FORMAT,
        "edge": {case.id: solution_value(lab, package, case) for case in lab.cases.EDGE_CASES},
        "edge_cases": cases_digest(lab.place.edge_cases),
        "cranfield": {system: bundle["systems"][system]["values"] for system in lab.cranfield.SYSTEMS},
        "aggregates": {system: bundle["systems"][system]["aggregates"] for system in lab.cranfield.SYSTEMS},
    }


def cases_digest(path: Path) -> str:
    """The hidden edge cases' file as a digest: the reference records the cases it was made from,
    so a change of the cases (which are not code, so not in the plan's key) changes the key too."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def dumps(reference: dict[str, Any]) -> str:
    return json.dumps(reference, sort_keys=True, indent=1) + "\n"


def write(lab: Lab, path: Path | None = None) -> Path:
    """Write ``lab``'s reference to ``path`` (default: its ``Place.reference``)."""
    path = path or lab.place.reference
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(generate(lab)), encoding="utf-8")
    return path


def check(lab: Lab, reference: dict[str, Any], bundle: dict[str, Any], path: Path | None = None) -> None:
    """``ReferenceDataError`` unless the stored Cranfield values are the bundle's (to 1e-9)."""
    path = path or lab.place.reference
    for system in lab.cranfield.SYSTEMS:
        for label in lab.measures.CRANFIELD:
            stored, live = reference["cranfield"][system][label], bundle["systems"][system]["values"][label]
            if stored.keys() != live.keys() or any(abs(stored[q] - live[q]) > 1e-9 for q in stored):
                raise ReferenceDataError(
                    f"{path} does not match Cranfield as ir_datasets gives it here ({system} {label}); "
                    "the data or the libraries changed: run `python -m autograder reference`"
                )


def load(lab: Lab, path: Path | None = None, bundle: dict[str, Any] | None = None) -> dict[str, Any]:
    """``lab``'s stored reference (``path``, default its ``Place.reference``), checked against the
    Cranfield bundle (when given)."""
    path = path or lab.place.reference
    try:
        reference: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError:
        raise ReferenceDataError(f"the reference {path} is missing: run `python -m autograder reference`") from None
    if reference.get("format") != FORMAT:
        raise ReferenceDataError(
            f"{path} has format {reference.get('format')}, this grader reads {FORMAT}: "
            "run `python -m autograder reference`"
        )
    try:
        current = cases_digest(lab.place.edge_cases)
    except OSError as error:
        raise ReferenceDataError(
            f"the hidden edge cases {lab.place.edge_cases} cannot be read ({error.strerror}): they travel with {path}"
        ) from None
    if reference.get("edge_cases") != current:
        raise ReferenceDataError(
            f"{path} was made from other edge cases than {lab.place.edge_cases}: run `python -m autograder reference`"
        )
    missing = [case.id for case in lab.cases.EDGE_CASES if case.id not in reference["edge"]]
    if missing:
        raise ReferenceDataError(
            f"{path} lacks the edge cases {', '.join(missing[:3])}...: run `python -m autograder reference`"
        )
    if bundle is not None:
        check(lab, reference, bundle, path)
    reference["digest"] = hashlib.sha256(
        dumps({k: v for k, v in reference.items() if k != "digest"}).encode()
    ).hexdigest()[:16]
    return reference
