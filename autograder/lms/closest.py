"""The roster rows closest to a student no row matches, so the message says who it may be.

A student is matched only by an exact email or SID (``roster.match``); when neither finds a row,
these near matches are named in the message, never given the grade (the instructor decides):

- the same SID without its leading zeros (Gradescope's ``0123`` against an LMS's ``123``);
- the same name: the same words in any order, without case or punctuation (Canvas writes
  ``Doe, Jane`` for Gradescope's ``Jane Doe``);
- the same email local part: the part before ``@`` of the student's email against the roster's
  emails' and usernames' (``jdoe@gmail.com`` against ``jdoe@example.edu`` or the login ``jdoe``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from autograder.grading.results import Student

MAX_SHOWN = 3  # candidates named in one message


class Known(Protocol):
    """A roster person as these matches read one (``roster.Person``, which imports this module):
    its row and what the LMS knows them by."""

    @property
    def row(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def emails(self) -> tuple[str, ...]: ...
    @property
    def sids(self) -> tuple[str, ...]: ...


_Person = TypeVar("_Person", bound=Known)


def _sid(value: str) -> str:
    return value.strip().casefold().lstrip("0")


def _name(value: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\w+", value.casefold())))


def _local(value: str) -> str:
    return value.strip().casefold().split("@", 1)[0]


def candidates(student: Student, people: Iterable[_Person]) -> list[tuple[_Person, str]]:
    """``(person, why)`` for each roster person close to ``student`` (a ``Student``), in roster
    order, at most ``MAX_SHOWN``."""
    sid, name, local = _sid(student.sid), _name(student.name), _local(student.email) if "@" in student.email else ""
    found = []
    for person in people:
        reasons = []
        if sid and any(_sid(value) == sid for value in person.sids):
            reasons.append(f"SID {', '.join(person.sids)}: the same without leading zeros")
        if name and _name(person.name) == name:
            reasons.append("the same name")
        if local and any(_local(value) == local for value in (*person.emails, *person.sids) if value.strip()):
            reasons.append(f"the same email local part ({local})")
        if reasons:
            found.append((person, "; ".join(reasons)))
    return found[:MAX_SHOWN]


def hint(student: Student, people: Iterable[Known]) -> str:
    """The closest rows in words, to end a "not in the roster" message."""
    found = candidates(student, people)
    if not found:
        return "; no roster row is close either (by SID without leading zeros, name, or email local part)"
    listed = ", ".join(f"row {person.row + 2} ({person.name}: {why})" for person, why in found)
    return (
        f"; closest: {listed}: if that is this student, fix the roster or Gradescope's metadata so one email or SID "
        "matches, and export again"
    )
