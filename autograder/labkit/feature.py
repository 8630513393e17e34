"""A feature a case's inputs can have: the phrase that completes "the cases with ...", and what the
contract says of such cases (diagnoses name the feature that separates a function's failing cases
from its passing ones, and say what is observed: the hint is the contract's rule, never a guessed
fix). A lab's ``features.FEATURES`` maps ids to these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Feature:
    id: str
    phrase: str  # completes "the cases with ..."
    hint: str  # what the contract says of these cases
    hints: Mapping[str, str] = field(default_factory=dict)  # function -> a hint of its own
    rules: Mapping[str, str] = field(default_factory=dict)  # tuning parameter -> what the contract asks of it
    scored: bool = True  # a group of its own when random cases are scored; False: for diagnoses only

    def hint_for(self, function: str, takes: tuple[str, ...] = ()) -> str:
        """The hint for ``function``, whose tuning parameters are ``takes``: its own hint, else the
        rules of its own parameters (never one it does not take), else the general hint."""
        if function in self.hints:
            return self.hints[function]
        named = [self.rules[name] for name in takes if name in self.rules]
        if named:
            return "; ".join(named) + ": anything else raises ValueError"
        return self.hint
