"""What a known misconception is.

Each ``Misconception`` names a mistake students really make, explains it in plain words,
points to the part of the notes that settles it, and carries a small function computing the
wrong variant (for ``write_run``: the rows the wrong writer would write). ``grading.diagnosis``
names one only when the variant explains every judged case of the function: the submission's
answer is one of the variant's forms' on every case (where the variant is right, the submission
must be too), and the variant is wrong on some of them. When several explain every case, the
catalogue's order chooses: put the more common mistake first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Misconception:
    id: str
    functions: tuple  # the graded functions it shows up in
    title: str  # the mistake, in plain words
    explanation: str  # why it is wrong and what is right
    notes: str  # where the notes explain it
    variants: dict  # function -> the wrong implementation, or a tuple of its usual forms;
    # write_run -> scenario -> the candidate files the wrong writer writes (a list, or an iterable
    # that makes them one at a time): tables of rows, or ("raises", exception class) when it raises
    arguments: bool = False  # a mistake about the arguments: its variants answer the calls that must raise too
    searches: Callable | None = None  # write_run: scenario -> how the wrong writer calls search_fn ([text, k] each)


def m(id, functions, title, explanation, notes, arguments=False, searches=None, **variants) -> Misconception:
    return Misconception(
        id=id,
        functions=tuple(functions),
        title=title,
        explanation=explanation,
        notes=notes,
        variants=variants,
        arguments=arguments,
        searches=searches,
    )
