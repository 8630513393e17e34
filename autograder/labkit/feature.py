"""A feature a case's inputs can have: the phrase that completes "the cases with ...", and what to
check when exactly those cases fail (diagnoses name the feature that separates a function's
failing cases from its passing ones). A lab's ``features.FEATURES`` maps ids to these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Feature:
    id: str
    phrase: str  # completes "the cases with ..."
    hint: str  # what to check when exactly these cases fail
    hints: Mapping = field(default_factory=dict)  # function -> a hint of its own

    def hint_for(self, function: str) -> str:
        return self.hints.get(function, self.hint)
