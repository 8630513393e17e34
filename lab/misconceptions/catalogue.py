"""The catalogue: every known misconception, a registry as a plain dict (id -> Misconception)."""

from __future__ import annotations

from . import arguments, cells, contract, evaluation, formulas, function_parts, gains, parts, ranking, ranks, runs
from .model import Misconception

LIBRARY: dict[str, Misconception] = {
    item.id: item
    for family in (cells, ranking, ranks, gains, evaluation, runs, arguments, formulas, contract)
    for item in family.ENTRIES
}


def for_function(function: str) -> list[Misconception]:
    return [item for item in LIBRARY.values() if function in item.variants]


#: The measures as compositions of named parts, fitted when no entry explains a function's answers.
PARTS = parts.MEASURES | function_parts.MEASURES
