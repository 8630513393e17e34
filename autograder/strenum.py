"""``StrEnum``: enum members that are their string values (``enum.StrEnum`` from Python 3.11,
the same behaviour on 3.10), so typed statuses and kinds print and serialise as plain strings."""

from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):
    from enum import StrEnum  # novermin (3.11 only, behind the version check)
else:

    class StrEnum(str, enum.Enum):
        """A ``str`` whose ``str()`` and ``format()`` are its value, as in Python 3.11."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


__all__ = ["StrEnum"]
