"""No reference collection, so no measure compared with ir_measures on it."""

from __future__ import annotations

from typing import Any

CRANFIELD: dict[str, Any] = {}


def ir_measures_values(measure: str, qrels: dict[str, Any], run: dict[str, Any]) -> dict[str, float]:
    raise ValueError(f"ir_measures_values: this lab compares no measure with ir_measures, got {measure!r}")
