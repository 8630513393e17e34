"""Where the project's parts live: one place for every path the engine reads."""

from __future__ import annotations

from pathlib import Path

#: The project root: the folder holding ``grading.yml``, ``assignment/`` and ``solutions/``.
ROOT = Path(__file__).resolve().parent.parent
HANDOUT = ROOT / "assignment"
SOLUTIONS = ROOT / "solutions"
RUBRIC = ROOT / "grading.yml"
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"

#: The files a submission is made of, and the handout's given files that complete the package.
GRADED_FILES = ("metrics.py", "runs.py")
GIVEN_FILES = ("__init__.py", "data.py", "retrieval.py")


def handout_file(name: str) -> Path:
    """A file of the handout's ``lab05`` package (stubs and given code)."""
    return HANDOUT / "lab05" / name


def solution_file(name: str) -> Path:
    """A graded file of the reference solution."""
    return SOLUTIONS / "lab05" / name
