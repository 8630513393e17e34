"""What a known misconception is.

Each ``Misconception`` names a mistake students really make, explains it in plain words,
points to the part of the notes that settles it, and carries a small function computing the
wrong variant (for ``write_run``: the rows the wrong writer would write). ``grading.diagnosis``
recognises one when a submission's outputs on a check's cases match the variant where the
variant and the right answer differ.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Misconception:
    id: str
    functions: tuple  # the graded functions it shows up in
    title: str  # the mistake, in plain words
    explanation: str  # why it is wrong and what is right
    notes: str  # where the notes explain it
    variants: dict  # function -> the wrong implementation, or a tuple of its usual forms;
    # write_run -> scenario -> the candidate tables the wrong writer writes


def m(id, functions, title, explanation, notes, **variants) -> Misconception:
    return Misconception(id, tuple(functions), title, explanation, notes, variants)
