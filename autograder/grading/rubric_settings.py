"""The rubric's settings that are plain values, apart from its schema (``rubric_schema``, which
validates them with pydantic): a grade that reads a validated rubric from the cache imports them
without the schema."""

from __future__ import annotations

from dataclasses import dataclass

#: How a check's cases become its points (``scoring``: the rubric's default, or a check's own):
#: ``groups``: its cases grouped by what they test (each example or edge case a group; random and
#: collection cases by each feature of their inputs, and all of them together), each group passed
#: or not, the points shared between the groups; ``proportional``: the share of cases passed;
#: ``all``: every case or no points.
SCORING = ("groups", "proportional", "all")


@dataclass(frozen=True)
class SimilaritySettings:
    """``grading.yml``'s ``similarity:`` section (the defaults are here, once); its
    rule lives in ``similarity/``, which only a batch imports."""

    enabled: bool = True
    threshold: float = 0.5  # a pair is listed when the larger of its two shares reaches this
