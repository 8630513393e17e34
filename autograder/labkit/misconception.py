"""What the engine reads of a known misconception, whatever a lab builds it with (Lab 05: a frozen
dataclass, ``lab/misconceptions/model.py``; Lab 06: a namedtuple): its id, the functions it shows
up in, its words, its wrong variants per function, whether it is a mistake about the arguments, and
a run writer's wrong calls of search_fn."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


class Misconception(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def functions(self) -> tuple[str, ...]: ...

    @property
    def title(self) -> str: ...

    @property
    def explanation(self) -> str: ...

    @property
    def notes(self) -> str: ...

    @property
    def variants(self) -> Mapping[str, Any]: ...  # function -> its wrong implementation (or usual forms)

    @property
    def arguments(self) -> bool: ...  # a mistake about the arguments

    @property
    def searches(self) -> Callable[..., Any] | None: ...  # a run writer's: scenario -> its calls of search_fn
