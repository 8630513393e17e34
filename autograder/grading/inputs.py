"""A case's arguments as the parent builds them (the grader's measures, table references), for
computing expected values and misconception variants on trusted code. The child builds the same
arguments from the same JSON (``sandbox/child/harness.py``)."""

from __future__ import annotations

from autograder.sandbox.child import toy_measures


def resolve(value, tables=None):
    """``value`` with ``{"$measure": name}`` and ``{"$ref": [table, key]}`` built, and the plain
    data of ``{"$tuple": items}`` and ``{"$readonly": mapping}`` (a tuple, a read-only mapping in
    the child: the same values here)."""
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag == "$ref" and tables is not None:
            return tables[arg[0]][arg[1]]
        if tag == "$measure":
            return toy_measures.measure(arg)
        if tag in ("$tuple", "$readonly", "$array"):
            return arg
    return value
