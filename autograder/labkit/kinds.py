"""The kinds of check a rubric gives a function, and how each kind's cases are made (the engine's
vocabulary, which every lab uses: the notes' examples, hidden edge cases, random cases, a
reference collection per query, and the checks of a written run file); the tuning parameters a
function may take."""

from __future__ import annotations

from autograder.strenum import StrEnum

#: The tuning parameters a record may name in ``takes`` (what conditions and off-by-one shapes use).
TUNING = ("k", "rel", "gain", "n")


class Family(StrEnum):
    """How a check's cases are made: one judged call each, or properties of a written run file."""

    CALLS = "calls"
    RUN_FILE = "run file"


class CheckKind(StrEnum):
    """A kind of check. ``label`` names it in results (``<function>: <label>``); ``family`` says
    how its cases are made; ``aggregated`` kinds have many cases and are reported per check."""

    EXAMPLES = "examples"
    EDGE = "edge"
    RANDOM = "random"
    CRANFIELD = "cranfield"
    RUN_FORMAT = "run_format"
    RUN_CONTENT = "run_content"
    RUN_CRANFIELD = "run_cranfield"

    @property
    def label(self) -> str:
        return _KINDS[self][0]

    @property
    def family(self) -> Family:
        return _KINDS[self][1]

    @property
    def aggregated(self) -> bool:
        return _KINDS[self][2]


_KINDS: dict[CheckKind, tuple[str, Family, bool]] = {
    CheckKind.EXAMPLES: ("the notes' examples", Family.CALLS, False),
    CheckKind.EDGE: ("hidden edge cases", Family.CALLS, False),
    CheckKind.RANDOM: ("random cases", Family.CALLS, True),
    CheckKind.CRANFIELD: ("all Cranfield queries", Family.CALLS, True),
    CheckKind.RUN_FORMAT: ("TREC format", Family.RUN_FILE, False),
    CheckKind.RUN_CONTENT: ("content", Family.RUN_FILE, False),
    CheckKind.RUN_CRANFIELD: ("Cranfield runs vs the notes' table", Family.RUN_FILE, False),
}


#: The kinds of check of a metric of one query compared with ir_measures.
PER_QUERY: tuple[CheckKind, ...] = (CheckKind.EXAMPLES, CheckKind.EDGE, CheckKind.RANDOM, CheckKind.CRANFIELD)
