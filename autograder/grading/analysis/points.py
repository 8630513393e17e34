"""The written analysis's points, apart from the code's: ``grading.yml``'s ``analysis:`` section
as a value (``rubric_schema.AnalysisSection`` validates it), and the one rule that turns checked
claims into points. A missing or broken analysis scores 0 here and never changes the code's points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for types only: the claims' schema (pydantic) is imported by what checks claims
    from .facts import Verdict


@dataclass(frozen=True)
class AnalysisPoints:
    """How the analysis is graded: its claims checked against the data, its prose by people."""

    claims: int = 2  # how many claims count: the file's first ones (the notes ask for two queries)
    claim_points: float = 2.0  # points of each counted claim that holds
    prose_points: float = 4.0  # points of the prose (analysis.md), graded by people

    @property
    def claims_max(self) -> float:
        return self.claims * self.claim_points

    @property
    def total(self) -> float:
        return self.claims_max + self.prose_points

    def claims_score(self, verdicts: Sequence[Verdict]) -> float:
        """The points of the counted claims that hold (claims beyond ``claims`` count for nothing)."""
        return sum(self.claim_points for verdict in verdicts[: self.claims] if verdict.holds)
