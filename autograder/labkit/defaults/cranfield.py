"""No reference collection: no systems, an empty bundle, nothing to ship or cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SYSTEMS: tuple[str, ...] = ()
NOTES_TABLE: dict[str, dict[str, str]] = {}


def bundle() -> dict[str, Any]:
    return {"qrels": {}, "titles": {}, "systems": {}}


def lazy_bundle() -> tuple[str, Callable[[], dict[str, Any]]]:
    return "no-collection", bundle


def shipped_files() -> list[tuple[str, bytes]]:
    return []


def cache_status() -> tuple[bool, str]:
    return True, "no collection to cache"
