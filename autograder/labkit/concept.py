"""A concept of a lab's notes: one definition or edge case the notes (or the contract) state, in their
words, with the part that states it, the functions it governs and the features of the inputs where it
decides the answer. When a function's failing cases are exactly the cases where one concept decides the
answer, the diagnosis names that concept (``grading.diagnosis.conditions``), whether or not the mistake
is a catalogued one. A lab's ``concepts.CONCEPTS`` maps ids to these, in the order to prefer them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Concept:
    id: str
    name: str  # the concept in a few words ("P@k divides by k")
    statement: str  # what the notes (or the contract) say, in their words
    part: str  # where they say it ("Part II, Precision"; "the function's contract")
    functions: tuple[str, ...]  # the graded functions it governs
    features: tuple[str, ...]  # the features (``features.FEATURES`` ids) of the cases where it decides the answer
    misconceptions: tuple[str, ...] = ()  # the catalogued mistakes about it (``misconceptions.catalogue`` ids)

    def governs(self, function: str, features: tuple[str, ...] | frozenset[str]) -> bool:
        """Does it govern ``function`` and decide the cases with every one of ``features``?"""
        return function in self.functions and bool(features) and all(f in self.features for f in features)
