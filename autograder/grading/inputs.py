"""A case's arguments as the parent builds them (the grader's measures, table references), for
computing expected values and misconception variants on trusted code. The child builds the same
arguments from the same JSON (``sandbox/child/harness.py``)."""

from __future__ import annotations

from typing import Any

from autograder.labkit.case import CONTRACT_TAGS
from autograder.sandbox.child import toy_measures


def resolve(value: object, tables: dict[str, dict[str, Any]] | None = None) -> object:
    """``value`` with ``{"$measure": name}`` and ``{"$ref": [table, key]}`` built, and the plain
    data of ``{"$tuple": items}``, ``{"$readonly": mapping}``, ``{"$array": items}`` and
    ``{"$arrays": mapping}`` (a tuple, a read-only mapping, numpy arrays in the child: the same
    values here)."""
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag == "$ref" and tables is not None:
            return tables[arg[0]][arg[1]]
        if tag == "$measure":
            return toy_measures.MEASURES[arg]  # ``toy_measures.measure``, the child's own spelling
        if tag in CONTRACT_TAGS:
            return arg
    return value
