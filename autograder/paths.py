"""Where the project's parts live: one place for every path the engine reads."""

from __future__ import annotations

from pathlib import Path

#: The ``autograder`` package itself (all of the grader's code lies below it).
PACKAGE = Path(__file__).resolve().parent
#: The project root: the folder holding ``grading.yml``, ``assignment/`` and ``solutions/``.
ROOT = PACKAGE.parent
HANDOUT = ROOT / "assignment"
SOLUTIONS = ROOT / "solutions"
RUBRIC = ROOT / "grading.yml"
REQUIREMENTS = ROOT / "requirements"
CHILD_REQUIREMENTS = REQUIREMENTS / "child.txt"  # the children's environment: what they may import, pinned
CHILD_VENV = ROOT / ".venv-child"  # that environment for local batches (``make setup``)
#: The lab's stored data: the hidden reference values.
LAB_DATA = PACKAGE / "lab" / "data"
REFERENCE = LAB_DATA / "expected.json"
PUBLIC_CASES = HANDOUT / "tests" / "public_cases.py"


def handout_file(name: str) -> Path:
    """A file of the handout's ``lab05`` package (stubs and given code)."""
    return HANDOUT / "lab05" / name


def solution_file(name: str) -> Path:
    """A graded file of the reference solution."""
    return SOLUTIONS / "lab05" / name
