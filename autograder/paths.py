"""Where the project's parts live: one place for every path the engine reads."""

from __future__ import annotations

import os
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
#: The hidden reference: what a student must never see (the edge cases' inputs, the expected
#: values). In the repository ``autograder/lab/data/``; ``$LAB05_HIDDEN`` names where a platform
#: keeps it instead (PrairieLearn: the question's private ``tests/hidden/``, never the image).
REPOSITORY_DATA = PACKAGE / "lab" / "data"
LAB_DATA = Path(os.environ.get("LAB05_HIDDEN") or REPOSITORY_DATA)
REFERENCE = LAB_DATA / "expected.json"
EDGE_CASES = LAB_DATA / "edge_cases.json"
PUBLIC_CASES = HANDOUT / "tests" / "public_cases.py"


def handout_file(name: str) -> Path:
    """A file of the handout's ``lab05`` package (stubs and given code)."""
    return HANDOUT / "lab05" / name


def solution_file(name: str) -> Path:
    """A graded file of the reference solution."""
    return SOLUTIONS / "lab05" / name
