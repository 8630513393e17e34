"""Where a lab's files lie: its folder (the rubric, the handout, the solutions), its package and
its hidden reference. A lab's modules ask ``of(__name__)`` for their own place, so that two labs
loaded in one process (``labkit.load``) each read their own files; a lab imported as
``autograder.lab`` reads the place ``paths`` derives from the environment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder import paths
from autograder.errors import InputError


@dataclass(frozen=True)
class Place:
    root: Path  # the lab's folder: grading.yml, assignment/, solutions/
    package: Path  # the lab's package (its modules, lab/)
    hidden: Path  # the hidden reference's folder (expected.json, edge_cases.json, scenarios.json)

    @property
    def handout(self) -> Path:
        return self.root / "assignment"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def rubric(self) -> Path:
        return self.root / "grading.yml"

    @property
    def reference(self) -> Path:
        return self.hidden / "expected.json"

    @property
    def edge_cases(self) -> Path:
        return self.hidden / "edge_cases.json"

    @property
    def scenarios(self) -> Path:
        return self.hidden / "scenarios.json"

    @property
    def public_cases(self) -> Path:
        return self.handout / "tests" / "public_cases.py"

    def student_package(self) -> str:
        """The package students fill in: the handout's one folder holding ``__init__.py``."""
        found = sorted(path.parent.name for path in self.handout.glob("*/__init__.py"))
        if len(found) != 1:
            raise InputError(
                f"Place.student_package: the handout {self.handout} should hold exactly one package "
                f"(a folder with __init__.py), found {found or 'none'}; put the students' package there"
            )
        return found[0]

    def handout_file(self, name: str) -> Path:
        """A file of the handout's student package (stubs and given code)."""
        return self.handout / self.student_package() / name

    def solution_file(self, name: str) -> Path:
        """A graded file of the reference solution."""
        return self.solutions / self.student_package() / name


#: The places of the labs ``labkit.load`` imported: their package's module name -> their place.
PLACES: dict[str, Place] = {}


def default() -> Place:
    """The place of the lab imported as ``autograder.lab`` (``paths``: the environment's choice)."""
    return Place(paths.LAB_ROOT, paths.LAB_PACKAGE, paths.LAB_DATA.resolve())


def of(module: str) -> Place:
    """The place of the lab the module ``module`` (a dotted name, a lab module's ``__name__``)
    belongs to."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = PLACES.get(".".join(parts[:end]))
        if found is not None:
            return found
    return default()
