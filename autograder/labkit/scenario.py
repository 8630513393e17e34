"""What the engine reads of a run writer's scenario (one call of it, with the search function's
results and the queries): a lab with a run writer builds its scenarios as a dataclass with these
fields (Lab 05: ``lab/scenarios.py``); the engine varies one with ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import Field
from typing import Any, ClassVar, Protocol


class Scenario(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # a dataclass: ``replace`` makes variants of it

    name: str
    system: str  # the system name the run file must carry
    results: dict[str, Any]  # query text -> the search function's results, best first
    queries: tuple[Any, ...]  # ((query_id, text), ...) in the order given to the writer
    k: int
    description: str
    overfull: bool  # the search function returns more than k results
    raises: str  # the error the writer must raise for these arguments ("" when a file is due)
    pass_k: bool  # False: the writer is called without k
    once: bool  # the queries are passed as a one-pass iterator, not a list

    @property
    def public(self) -> bool: ...  # its cases are shown with their values

    def expected_rows(self) -> list[tuple[Any, ...]]: ...  # the rows the right writer writes

    def expected_text(self) -> str: ...  # the file the right writer writes, byte for byte

    def all_features(self) -> frozenset[str]: ...  # what it tests, for diagnoses
