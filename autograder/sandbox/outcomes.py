"""What became of a submission's calls in the sandbox: each call's (and each graded file's import's)
``Outcome``, why a graded file's run stopped or a call never ran (``StopReason``), and the whole
run's ``SandboxResult``, as the runner returns it to the grader.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from autograder.strenum import StrEnum

#: An error a call or an import raised, as the parent keeps it (``channel._error``): type, mro, message, traceback.
ErrorInfo = dict[str, Any]

#: The names an error's mro may hold (``channel._error`` drops the rest): the built-in exception
#: classes (those of Python 3.11 too, whatever Python the grader runs) and ``object``. A child's
#: class names are the student's to choose, so no other name reaches a message a student reads.
BUILTIN_ERRORS = frozenset(
    {name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)}
    | {"BaseExceptionGroup", "ExceptionGroup", "object"}
)


class OutcomeStatus(StrEnum):
    """What became of one call (or one import)."""

    VALUE = "value"  # the call returned (its encoded value)
    ERROR = "error"  # the call (or the import) raised
    TIMEOUT = "timeout"  # it did not finish in time
    CRASH = "crash"  # the process ended or wrote nonsense during it
    NOT_RUN = "not-run"  # it never ran (an earlier failure, a spent budget)
    OK = "ok"  # an import that worked


class StopReason(StrEnum):
    """Why the runner stopped running a graded file's calls (``SandboxResult.stops``), or why one
    call never ran (``Outcome.stop``, with ``OutcomeStatus.NOT_RUN``)."""

    DONE = "done"  # (a file) every call that was to run ran, and its child said it was done
    NOTHING_LEFT = "nothing left"  # (a file) its child ended, hung or wrote nonsense with no call left to run
    IMPORT_FAILED = "import failed"  # (a call) its graded file did not import
    CRASHES = "crashes"  # (a call) its function crashed ``STRIKES`` times: its other calls were not run
    BUDGET = "budget"  # (a call) its function used up its time budget
    TIME_LIMIT = "time limit"  # the submission's own time limit ran out
    OVERALL_TIME_LIMIT = "overall time limit"  # a platform's overall deadline ran out (it came first)
    UNKNOWN = "unknown"  # (a call) not run, for none of the reasons above


@dataclass
class Outcome:
    """What became of one call (or one import)."""

    status: OutcomeStatus
    value: object = None
    error: ErrorInfo | None = None
    seconds: float = 0.0
    detail: str = ""
    secret: bool = False  # an import again after a secret call: its own words were dropped
    mutated: bool = False  # the call changed its arguments (the caller's data)
    stop: StopReason | None = None  # a call not run: why


@dataclass
class SandboxResult:
    outcomes: list[Outcome | None]  # one per call (None: not decided yet; ``runner.run`` fills every one)
    imports: dict[str, Outcome] = field(default_factory=dict)  # graded file -> how importing it went
    banned_imports: list[tuple[str, str]] = field(default_factory=list)  # (module, the file or function importing it)
    # (module, where): neither standard nor allowed
    disallowed_imports: list[tuple[str, str]] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    restarts: int = 0
    elapsed: float = 0.0
    notes: list[str] = field(default_factory=list)
    hidden_output: str = ""  # printed after a secret call's inputs reached a child: instructors only
    uid: int | None = None  # the sandbox uid its children ran as (leased by this grader)
    disturbed: list[str] = field(default_factory=list)  # calls killed from outside twice: the grader was disturbed
    landlock: int | None = None  # uid mode: the Landlock ABI its children were confined with (0: none)
    stops: dict[str, StopReason] = field(default_factory=dict)  # graded file -> why its run stopped
    output_dropped: bool = False  # what the student may see of stdout or stderr went over the output limit
