"""The reference ``lab05`` package: the solutions' graded files plus the handout's given ones.

Only trusted code (the reference generator and the project's tests) imports it; it never
runs where a submission runs, and a submission never runs where it is imported.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

from autograder.labkit import place

PLACE = place.of(__name__)  # where this lab's files lie


def load_lab05(
    graded_dir: Path = PLACE.solutions / "lab05", given_dir: Path = PLACE.handout / "lab05"
) -> types.ModuleType:
    """Import ``lab05`` with ``metrics``/``runs`` from ``graded_dir`` and the rest from ``given_dir``.

    The package is registered as ``lab05`` in ``sys.modules`` (the given ``retrieval`` imports
    ``lab05.data``). Loading it again with the same folders returns the same package; with
    other folders it is a ``RuntimeError``, as one process can hold only one ``lab05``.
    """
    path = [str(Path(graded_dir).resolve()), str(Path(given_dir).resolve())]
    existing = sys.modules.get("lab05")
    if existing is not None:
        if list(getattr(existing, "__path__", [])) != path:
            raise RuntimeError(
                f"another lab05 package is already imported from "
                f"{list(getattr(existing, '__path__', []))}; cannot load {path}"
            )
        return existing
    package = types.ModuleType("lab05")
    package.__path__ = path
    package.__package__ = "lab05"
    sys.modules["lab05"] = package
    for name in ("metrics", "runs", "data", "retrieval"):
        setattr(package, name, importlib.import_module(f"lab05.{name}"))
    return package


def load() -> types.ModuleType:
    """The reference package (the lab interface's name for it, ``docs/LABS.md``)."""
    return load_lab05()


def reference_metrics() -> dict | None:
    """The reference's metric functions, run standalone (``solutions/lab05/metrics.py`` imports
    nothing of the package), or None where the solutions are not shipped."""
    path = PLACE.solution_file("metrics.py")
    if not path.is_file():
        return None
    namespace: dict = {"__name__": "lab05_reference_metrics"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace
