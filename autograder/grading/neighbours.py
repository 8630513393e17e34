"""The answers next to a case's: at k - 1, k + 1 and rel + 1. A wrong answer equal to one of them
points at an off-by-one (``grading/diagnosis``): a plan's shared cases get the reference solution's
(``of_reference``, only where plans are built), a random case ``ir_measures``' (``random_neighbours``).
"""

from __future__ import annotations

from typing import Any

from autograder.grading import inputs
from autograder.labkit.case import Case, plain, valid_tuning
from autograder.labkit.lab import Lab


def random_neighbours(lab: Lab, case: Case) -> dict[str, Any]:
    """A random case's answers with k - 1, k + 1 and rel + 1, from ``ir_measures`` (the solutions
    are not where platforms grade): wrong answers equal to one of them point at an off-by-one."""
    record = lab.records[case.function]
    if record.ir_measure is None or not valid_tuning(case.kwargs):
        return {}
    k, rel, gain = case.kwargs.get("k"), case.kwargs.get("rel", 1), case.kwargs.get("gain", "linear")
    found = {}
    for key, delta in (("k", -1), ("k", 1), ("rel", 1)):
        if key not in record.takes or (key == "k" and k is None):
            continue
        value = (k if key == "k" else rel) + delta  # type: ignore[operator]  # k is set when key is "k"
        if value < 1:
            continue
        moved = {"k": value, "rel": rel, "gain": gain} if key == "k" else {"k": k, "rel": value, "gain": gain}
        ranking, judgments = (plain(arg) for arg in case.args)
        run = {"q": {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}} if ranking else {}
        found[f"{key}{delta:+d}"] = lab.measures.ir_measures_values(record.ir_measure(**moved), {"q": judgments}, run)[
            "q"
        ]
    return found


def of_reference(lab: Lab, made: list[Case], tables: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each case with a cutoff or a threshold, the reference's answers with k - 1, k + 1 and
    rel + 1: wrong answers equal to one of them point at an off-by-one (``grading.shapes``)."""
    functions = lab.solution.reference_metrics()
    if functions is None:  # the solutions are not here (they are only where plans are built)
        return {}
    found: dict[str, dict[str, Any]] = {}
    for case in made:
        function = functions.get(case.function)
        if function is None:
            continue
        arguments = [inputs.resolve(arg, tables) for arg in case.args]
        for key, delta in (("k", -1), ("k", 1), ("rel", 1)):
            takes = "k" in case.kwargs if key == "k" else key in lab.records[case.function].takes
            if not takes:
                continue
            value = case.kwargs.get(key, 1)
            if not isinstance(value, int) or isinstance(value, bool) or value + delta < 1:
                continue
            try:
                answer = function(*arguments, **{**case.kwargs, key: value + delta})
            except Exception:
                continue
            found.setdefault(case.id, {})[f"{key}{delta:+d}"] = list(answer) if isinstance(answer, tuple) else answer
    return found
