"""What the grader knows of one graded function: the one record the engine reads it from.

Adding a function to a lab is writing its record (``docs/ADDING.md``), its solution, the notes'
examples and the rubric's lines: the engine names no function, it reads these fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autograder.labkit.kinds import TUNING, CheckKind, Family

if TYPE_CHECKING:
    import random

    from autograder.labkit.case import Case

#: What a call's inputs have: (its arguments, built, and its keyword arguments) -> feature ids.
Features = Callable[[tuple[Any, ...], dict[str, Any]], Iterable[str]]
#: (rng, count) -> that many cases, inputs only.
RandomCases = Callable[["random.Random", int], list["Case"]]
#: (the cases, the resolver building what a case names, e.g. a measure) -> their right answers.
Expected = Callable[[list["Case"], Callable[[Any], Any]], list[Any]]


def _nothing(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterable[str]:
    return ()


@dataclass(frozen=True)
class GradedFunction:
    """One function of the student API, everything the grader knows of it."""

    name: str
    file: str  # the graded file that defines it
    returns: str  # what it returns, in the contract's words (messages say what was expected)
    notes_part: str  # where the notes explain it
    kinds: tuple[CheckKind, ...]  # the kinds of check the rubric may give it
    takes: tuple[str, ...] = ()  # its tuning parameters (of ``TUNING``): conditions name only these
    parameters: tuple[str, ...] = ()  # the reference's parameter names, in order: its calls' other forms bind by them
    bounded: bool = False  # every right answer lies in [0, 1]
    answer_items: tuple[str, ...] = ()  # the names of the items of a fixed-size answer (a tuple's cells)
    answer_hint: str = ""  # what each of those items is, for an answer whose items are wrong or misplaced
    features: Features = _nothing  # what a call's inputs have (``lab.features``)
    ir_measure: Callable[..., str] | None = None  # (k=, rel=, gain=) -> the ir_measures measure it equals
    random_cases: RandomCases | None = None  # inputs only
    expected: Expected | None = None  # their answers, computed live (default: by ir_measure)
    writes_run_file: bool = False  # its checks read the run file it writes, not what it returns

    @property
    def family(self) -> Family:
        return Family.RUN_FILE if self.writes_run_file else Family.CALLS

    def check(self) -> list[str]:
        """What is missing or inconsistent in this record (empty when it is whole)."""
        problems = [f"takes {name!r}, not a tuning parameter" for name in self.takes if name not in TUNING]
        if CheckKind.RANDOM in self.kinds and self.random_cases is None:
            problems.append("has random checks but no random_cases")
        if CheckKind.RANDOM in self.kinds and self.expected is None and self.ir_measure is None:
            problems.append("has random checks but neither expected nor ir_measure")
        if CheckKind.CRANFIELD in self.kinds and self.ir_measure is None:
            problems.append("has Cranfield checks but no ir_measure")
        if self.writes_run_file != any(kind.family == Family.RUN_FILE for kind in self.kinds):
            problems.append("writes_run_file and its kinds disagree")
        if self.answer_items and not self.answer_hint:
            problems.append("names its answer's items but not what each is (answer_hint)")
        if self.features is _nothing and not self.writes_run_file:  # a run writer's scenarios name theirs
            problems.append("has no features (diagnoses could not say which inputs it fails on)")
        return problems
