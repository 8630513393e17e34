"""A lab as a value: everything the engine reads of one lab, gathered once by ``labkit.load``
(``load.py``) from the lab's folder. Two labs are two values, side by side in one process."""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass

from autograder.labkit.kinds import CheckKind
from autograder.labkit.place import Place
from autograder.labkit.record import GradedFunction


@dataclass(frozen=True, eq=False)  # one value per loaded folder: compared (and hashed) by identity
class Lab:
    """One lab: its names, its student API and the views of it the engine reads, the rules its
    answers are judged by, its modules and where its files lie."""

    name: str  # the module name its package was imported under (unique per folder)
    title: str  # what pages call it ("Lab 05")
    package: str  # the package students fill in
    graded_files: tuple[str, ...]  # the files a submission is made of
    given_files: tuple[str, ...]  # the handout's files that complete the package
    records: Mapping[str, GradedFunction]  # function -> its record, in the handout's order
    functions: Mapping[str, str]  # function -> the graded file it lives in
    metric_functions: tuple[str, ...]  # the functions whose file the library rule covers
    returns: Mapping[str, str]  # function -> what it returns, in the contract's words
    notes_parts: Mapping[str, str]  # function -> where the notes explain it
    kinds_for: Mapping[str, tuple[CheckKind, ...]]  # function -> the kinds of check it can have
    visibilities: tuple[str, ...]  # who may see a check's result
    tolerance: float  # answers pass within this, absolute or relative
    evaluation_libraries: tuple[str, ...]  # top-level modules metric code may not use
    library_rule_file: str  # the graded file whose functions lose their credit when it uses one
    place: Place  # its folder, package and hidden reference
    spec: types.ModuleType  # the lab's vocabulary (``lab/spec.py``)
    registry: types.ModuleType  # its records and their live answers (``lab/functions/registry.py``)
    cases: types.ModuleType
    measures: types.ModuleType
    cranfield: types.ModuleType  # its reference collection (an empty one for a lab without)
    scenarios: types.ModuleType
    features: types.ModuleType
    concepts: types.ModuleType  # the notes' definitions and edge cases (``lab/concepts.py``; none by default)
    misconceptions: types.ModuleType  # the catalogue (``lab/misconceptions/catalogue.py``)
    variants: types.ModuleType
    solution: types.ModuleType

    @property
    def slug(self) -> str:
        """The lab's short name in what a course sees per lab and in what its grades are drawn from:
        PrairieLearn's question ids, tags and uuids, the image's default name, the random cases' seed
        text. Its package's name (Lab 05: the package ``lab05`` gives ``lab05``), the one place it is
        derived, so every id of one lab agrees and another lab's differ."""
        return self.package

    def notes_part(self, function: str) -> str:
        """Where the notes explain ``function`` ("the notes" for a name the lab does not know)."""
        return self.notes_parts.get(function, "the notes")
