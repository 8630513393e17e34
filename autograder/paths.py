"""Where the project's parts live: one place for every path the engine reads."""

from __future__ import annotations

from pathlib import Path

from autograder import environment
from autograder.errors import InputError

#: The ``autograder`` package itself (all of the grader's code lies below it).
PACKAGE = Path(__file__).resolve().parent
#: The project root (the grader's checkout).
ROOT = PACKAGE.parent
#: The lab graded, chosen here alone: the folder ``--lab`` or ``$AUTOGRADER_LAB`` names, else this
#: repository's root, which is Lab 05's lab folder. A lab folder holds ``lab/`` (its package,
#: imported as ``autograder.lab`` by ``labkit.load.activate``), ``grading.yml``, ``assignment/`` and
#: ``solutions/`` (``docs/LABS.md``).
LAB_ROOT = Path(environment.get("LAB") or ROOT).resolve()


def lab_package(root: Path) -> Path:
    """A lab folder's package: its ``lab/``."""
    return root / "lab"


LAB_PACKAGE = lab_package(LAB_ROOT)
HANDOUT = LAB_ROOT / "assignment"
SOLUTIONS = LAB_ROOT / "solutions"
RUBRIC = LAB_ROOT / "grading.yml"
REQUIREMENTS = ROOT / "requirements"
#: The name a platform's build ships the children's pins under, beside the ``autograder`` package
#: (``platforms/common/shipment.py``: autograder.zip's ``source/``, the PrairieLearn image's).
SHIPPED_CHILD_REQUIREMENTS = "requirements-child.txt"
#: The children's environment: what they may import, pinned; ``requirements/child.txt`` in the
#: repository, the shipped file in a built grader (which has no ``requirements/``), where ``doctor``
#: reads it.
CHILD_REQUIREMENTS = REQUIREMENTS / "child.txt" if REQUIREMENTS.is_dir() else ROOT / SHIPPED_CHILD_REQUIREMENTS
CHILD_VENV = ROOT / ".venv-child"  # that environment for local batches (``make setup``)
#: The hidden reference: what a student must never see (the edge cases' inputs, the expected
#: values). In the lab's folder ``lab/data/``; ``$AUTOGRADER_HIDDEN`` names where a platform
#: keeps it instead (PrairieLearn: the question's private ``tests/hidden/``, never the image).
REPOSITORY_DATA = LAB_PACKAGE / "data"
LAB_DATA = Path(environment.get("HIDDEN") or REPOSITORY_DATA)
REFERENCE = LAB_DATA / "expected.json"
EDGE_CASES = LAB_DATA / "edge_cases.json"
SCENARIOS = LAB_DATA / "scenarios.json"  # the hidden run writer scenarios' inputs (a lab with a run writer)
PUBLIC_CASES = HANDOUT / "tests" / "public_cases.py"


def student_package() -> str:
    """The name of the package students fill in: the handout's one folder holding ``__init__.py``
    (Lab 05: ``lab05``; the lab's spec says the same, and a test checks it)."""
    found = sorted(path.parent.name for path in HANDOUT.glob("*/__init__.py"))
    if len(found) != 1:
        raise InputError(
            f"paths.student_package: the handout {HANDOUT} should hold exactly one package (a folder with "
            f"__init__.py), found {found or 'none'}; put the students' package there"
        )
    return found[0]


def handout_file(name: str) -> Path:
    """A file of the handout's student package (stubs and given code)."""
    return HANDOUT / student_package() / name


def solution_file(name: str) -> Path:
    """A graded file of the reference solution."""
    return SOLUTIONS / student_package() / name
