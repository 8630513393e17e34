"""What a child runs under: its resource limits and its enclosure (plain values, chosen elsewhere)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypedDict

from autograder.strenum import StrEnum

# What the parent reads of a child's channel, and when it gives up on a function (``channel.py``).
RUN_LINE_LIMIT = 10 << 20  # one answer of a call returning a run file (at most 4 MiB, escaped as UTF-8 JSON)
LINE_LIMIT = 1 << 20  # one answer of any other function
ANSWER_KEPT = 8 << 10  # what is kept of one answer (every right answer is far smaller)
CHANNEL_LIMIT = 32 << 20  # all channel bytes of one graded file's children (its right answers take ~2 MiB)
MAX_BRACKETS = 20000  # nesting and items in one answer (a parsed line must stay small)
MAX_BANNED = 20  # banned-import attempts kept
STRIKES = 3  # crashes after which a function's other calls are skipped (hangs: its time budget bounds them)
# A function's calls after one of them hung get this long (plus what the machine's load took):
# a right answer takes milliseconds, and code that loops on one kind of input then costs the
# function its budget on a few more of them instead of every case after the second hang.
AFTER_HANG_SECONDS = 0.5
STARTUP_SECONDS = 10.0  # the child's start-up and the imports, beyond the per-call limit


class Mode(StrEnum):
    """How children are enclosed."""

    JAIL = "jail"  # namespaces: a fresh read-only root, no network, its own PIDs
    UID = "uid"  # another user, where namespaces are refused (e.g. a container)
    NONE = "none"  # not enclosed: trusted code only


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 5.0  # one call
    submission_seconds: float = 120.0  # all calls of one submission
    memory_mb: int = 512  # address space of each process (grading.yml says why 512)
    output_kb: int = 64  # what is kept of stdout and of stderr
    file_mb: int = 64  # one file written
    tmp_mb: int = 64  # the scratch space (the jail's tmpfs; the uid mode's bound: sandbox/scratch.py)
    tmp_inodes: int = 4096  # files and folders in it (each costs kernel memory, whatever its size)
    processes: int = 16  # processes and threads of the sandbox user
    functions: int = 11  # the API's functions: each gets an equal share of the time
    overall_seconds: float = 600.0  # a platform's whole run (Gradescope's default: 10 minutes)

    #: The limits a rubric may set (``grading.yml``'s ``limits:``).
    RUBRIC_FIELDS: ClassVar[tuple[str, ...]] = (
        "call_seconds",
        "submission_seconds",
        "memory_mb",
        "output_kb",
        "overall_seconds",
    )
    #: What the platform's run keeps of ``overall_seconds`` for itself: grading stops starting
    #: calls this long before the end, so results.json is written in time.
    OVERALL_MARGIN: ClassVar[float] = 30.0
    #: Memory the grader needs beside one child (its own peak, about 60 MiB, measured by
    #: ``bench/benchmark.py --container``; the jail's /scratch; the platform's own processes):
    #: a container must hold ``memory_mb`` plus this.
    GRADER_ROOM_MB: ClassVar[int] = 256

    def cpu_seconds(self) -> int:
        """The CPU time each process of a submission may use (its RLIMIT_CPU): past the
        submission's own time, so that a wall-clock limit always comes first for honest code."""
        return int(self.submission_seconds) + 5

    def function_seconds(self) -> float:
        """The time all calls of one function may take together, so that one slow function
        cannot use up the others' time."""
        return self.submission_seconds / self.functions


@dataclass(frozen=True)
class Package:
    """The package a child imports the submission as: its name and its graded files, in order (the
    lab's: ``Lab.package`` and ``Lab.graded_files``; the engine has no default)."""

    name: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Call:
    """One call a child answers, as the sandbox sees it (its inputs travel apart: the runner's
    ``payload`` gives them when the call is to run)."""

    fn: str  # the function called
    file: str  # the graded file that defines it
    secret: bool = False  # its inputs are hidden from the student: nothing printed from then on is shown
    large: bool = False  # its answer is a file (up to 4 MiB): the channel takes a longer line


@dataclass(frozen=True)
class Isolation:
    """How children are enclosed, and with what."""

    mode: Mode
    python: str
    uids: tuple[
        int, ...
    ] = ()  # the sandbox uids this grader leased (``sandbox/leases.py``); worker slot n uses uids[n]
    read_paths: tuple[str, ...] = ()  # jail: what the child can read (Python, its libraries)
    hidden_paths: tuple[str, ...] = ()  # evaluation libraries and site folders covered (jail) or left out (uid)
    kept_paths: tuple[str, ...] = ()  # the entries of hidden site folders shown again: the allowed packages'
    banned: tuple[str, ...] = ()  # top-level modules graded code may not import (the evaluation libraries, flagged)
    seccomp: bytes = b""  # the seccomp filter children install (raw BPF; ``filters.child_filter``)
    allowed: tuple[str, ...] | None = (
        None  # what else graded code may import besides the standard library (None: anything)
    )

    @property
    def uid(self) -> int | None:
        """The first sandbox uid (the self-test's); None when children keep the grader's uid."""
        return self.uids[0] if self.uids else None


class _SentFields(TypedDict):
    fn: str
    file: str
    args: list[object]
    kwargs: dict[str, object]


class SentCall(_SentFields, total=False):
    """What a child receives for one call, pickled after the call's index: its inputs, resolved
    (``grading/payloads.py``)."""

    partial: bool  # call functools.partial(function, **kwargs)(*args): how the contract's measures are made


class ChildLimits(TypedDict):
    """The resource limits a child sets on itself before it imports graded code."""

    memory_mb: int
    file_mb: int
    tmp_mb: int
    tmp_inodes: int
    processes: int
    cpu_seconds: int


class _ChildFields(TypedDict):
    package: str  # what the submission is imported as
    graded_files: list[str]
    lab_dir: str
    skip_files: list[str]  # graded files this child does not import
    isolation: Mode
    uid: int | None  # the sandbox uid it drops to (None: it keeps the grader's)
    work_dir: str
    jail_root: str
    jail_read: list[str]
    jail_hide: list[str]
    jail_keep: list[str]
    banned: list[str]
    allowed: list[str] | None
    read_paths: list[str]
    seccomp: str  # the filter, base64
    environment: dict[str, str]
    limits: ChildLimits


class ChildConfig(_ChildFields, total=False):
    """A child's configuration (``sandbox/child/harness.py`` reads it, as JSON, from its stdin)."""

    channel: int  # the file descriptor it writes its answers to (``child_process`` adds it)
