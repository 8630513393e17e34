"""The grading channel: what the parent reads from a child, trusting none of it.

``parse_line`` accepts only a small, shallow JSON object per line; ``Reader`` follows one
child's messages (the jail's PID 1 report, the imports, "ready", one answer per call in order, the
end), sends the child the calls' inputs (``feed``: the public calls together, in one batch, each
secret call only when it is to run), knows which call is under way for the time limits, and says
which call (or import) to blame when the child ends, hangs or writes nonsense. What it records is
``outcomes``' vocabulary (re-exported here).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator
from typing import Any, Protocol

from autograder.sandbox.outcomes import BUILTIN_ERRORS
from autograder.sandbox.outcomes import ErrorInfo as ErrorInfo
from autograder.sandbox.outcomes import Outcome as Outcome
from autograder.sandbox.outcomes import OutcomeStatus as OutcomeStatus
from autograder.sandbox.outcomes import SandboxResult as SandboxResult
from autograder.sandbox.outcomes import StopReason as StopReason
from autograder.sandbox.settings import (  # the limits live in settings, with the others
    AFTER_HANG_SECONDS,
    ANSWER_KEPT,
    LINE_LIMIT,
    MAX_BANNED,
    MAX_BRACKETS,
    RUN_LINE_LIMIT,
    STARTUP_SECONDS,
    Call,
    Limits,
    Mode,
)

#: One channel message: a small, shallow JSON object, every field of it untrusted.
Message = dict[str, Any]
#: What ``Child.messages`` yields: ``("message", Message)`` (or ``("message", Message, bytes of its
#: line)``), or an ending: ``("timeout",)``, ``("eof",)``, ``("garbage", what was read)``.
Event = tuple[Any, ...]


class Child(Protocol):
    """What a ``Reader`` needs of a child (``child_process.ChildProcess``; the tests' scripted fakes)."""

    def messages(self, deadline_of: Callable[[], float], line_limit: Callable[[], int]) -> Iterator[Event]: ...
    def waited(self) -> float | None: ...
    def cpu(self) -> float | None: ...
    def launched(self, pid: int) -> bool: ...
    def watch(self, pid: int) -> None: ...


#: Sends a child call ``index`` (None: the end).
Feed = Callable[[Any, "int | None"], None]


#: The longest channel line whose answer ``kept`` keeps without measuring it: ``json.dumps`` writes an
#: answer at most 4.5 times longer than its line (a float literal of 4 bytes, ``1e15``, is
#: ``1000000000000000.0``; a character of 2 UTF-8 bytes is a 6-character escape; a separator gains a
#: space; nothing else grows), so at most 2,304 bytes, within ``ANSWER_KEPT``; and it nests at most
#: 256 deep, which every later ``json.dumps`` of the result writes.
SHORT_LINE = 512


def kept(value: object, line_bytes: int | None = None) -> object:
    """An answer as the parent keeps it: whole when it is small (every right answer of this lab is a
    few hundred bytes), else only its kind and size: thousands of big answers cost no memory, and an
    answer that big is wrong anyway. Run files are kept whole (their size has limits of its own).
    ``line_bytes``: the length of the channel line it was parsed from, when known: a line of at most
    ``SHORT_LINE`` bytes cannot hold an answer past ``ANSWER_KEPT``, so it is not measured again."""
    if isinstance(value, dict) and value.get("type") == "runfile":
        return value
    if line_bytes is not None and line_bytes <= SHORT_LINE:
        return value
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return {"type": "too-large", "bytes": 0}
    return value if size <= ANSWER_KEPT else {"type": "too-large", "bytes": size}


def parse_line(line: bytes | bytearray, limit: int) -> Message | None:
    """A channel line as a dict, or None if it is not a small, shallow JSON object."""
    if len(line) > limit or line.count(b"[") + line.count(b"{") > MAX_BRACKETS:
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


class Reader:
    """Follows one child's messages, filling the result; feeds it the calls (``feed(child, index)`` sends
    call ``index``, or the end when ``index`` is None): the public ones together, each secret one alone
    when it is to run; knows which call is under way."""

    def __init__(
        self,
        calls: list[Call],
        start: int,
        skip: Collection[str],
        skip_files: set[str],
        result: SandboxResult,
        spent: dict[str, float],
        mode: str,
        feed: Feed | None = None,
        hung: Collection[str] = (),
        files: Collection[str] | None = None,
    ):
        self.calls, self.skip, self.skip_files, self.result, self.mode = calls, skip, skip_files, result, mode
        self.hung = hung  # functions a call of which hung before: their calls get AFTER_HANG_SECONDS
        self.feed: Feed = feed or (lambda child, index: None)
        # the graded files a child may say it imports (None: those of the calls)
        self.files = set(files) if files is not None else {call.file for call in calls}
        self.sent: int | None = -1  # the last call sent (None: the end was sent)
        self.seen = 0  # messages read from this child
        self.spent, self.budget_ran_out = spent, False
        self.loaded = 0.0  # what the call under way when the child stopped waited for a CPU
        self.duplicate: int | None = None  # a call whose answer came twice
        self.imported = 0  # graded files this child has imported (or failed to)
        self.importing: str | None = None  # the graded file being imported
        self.next_index = self._next(start)
        self.last_message = time.monotonic()
        self.sent_at = self.last_message  # when the call under way started (was sent, or the one before answered)
        self.parent_mark = parent_waited()  # this grader's own wait for a CPU, then
        self.last_waited: float | None = None  # the child's time waiting for a CPU, at its last message
        self.last_cpu: float | None = None  # the CPU time it had used, at its last message
        self.used = 0.0  # the CPU time the call under way used, once it ended
        self.started = False
        self.line_bytes: int | None = None  # the length of the message's line, where the child says it
        self.arrival: object = None  # the child's ``arrival`` at the last reading of its clocks

    def ready(self) -> bool:
        """Has this child imported its graded files and said it is ready (so calls are under way)?"""
        return self.started

    def _runs(self, index: int) -> bool:
        call = self.calls[index]
        imported = self.result.imports.get(call.file)
        return (
            call.fn not in self.skip
            and call.file not in self.skip_files
            and (imported is None or imported.status == OutcomeStatus.OK)
        )

    def _send(self, child: Child, mark: float | None = None) -> None:
        """The call to run next is under way: its clock starts now. Send it, unless it went out
        already: a public call goes out with every public call after it that is to run (one write
        for them all; the child answers them in turn), a secret call alone, once the call before it
        is answered (its inputs reach the child only when it is to run), and the end last. ``mark``:
        this grader's wait for a CPU, read just now (else it is read here)."""
        if not self.started or self.sent is None:
            return
        index = self.next_index if self.next_index < len(self.calls) else None
        if index is None:
            self.feed(child, None)
            self.sent = None
        elif index > self.sent and self.calls[index].secret:
            self.feed(child, index)
            self.sent = index
        elif index > self.sent:
            following = index
            while following < len(self.calls) and not self.calls[following].secret:
                self.feed(child, following)
                self.sent, following = following, self._next(following + 1)
        self.sent_at, self.parent_mark = time.monotonic(), parent_waited() if mark is None else mark

    def _next(self, index: int) -> int:
        while index < len(self.calls) and not self._runs(index):
            index += 1
        return index

    def read(self, child: Child, limits: Limits, deadline: float) -> str:
        """Read ``child`` (a ``child_process.ChildProcess``) until it is done, hangs, ends or writes nonsense;
        returns which: ``done``, ``timeout``, ``eof`` or ``garbage``."""
        self.last_waited, self.last_cpu = child.waited(), child.cpu()
        events = child.messages(lambda: self._deadline(child, limits, deadline), self._line_limit)
        for event in events:
            if event[0] != "message":
                self.loaded = self._load(child, fresh=True)  # what the call under way waited for a CPU
                return event[0] if event[0] != "garbage" else "garbage"
            loaded = self._load(child)
            self.last_message = time.monotonic()
            self.seen += 1
            self.line_bytes = event[2] if len(event) > 2 else None
            ending = self._take(child, event[1], loaded)
            if ending is not None:
                return ending
        return "eof"

    def _deadline(self, child: Child, limits: Limits, deadline: float) -> float:
        """When the child must have sent its next message: the import or start-up allowance, else
        the call under way's limit (less after a hang of its function, never more than what is left
        of its function's time budget), and never after ``deadline``."""
        if self.importing or not self.ready():
            return min(self.last_message + limits.call_seconds + STARTUP_SECONDS, deadline)
        under_way = self._under_way()
        function = under_way.fn if under_way is not None else ""
        left = max(limits.function_seconds() - self.spent.get(function, 0.0), 0.0)
        self.budget_ran_out = left < limits.call_seconds
        limit = limits.call_seconds
        if function in self.hung:
            limit = min(limit, AFTER_HANG_SECONDS) + self._waited_since_sent(child)
        return min(self.sent_at + min(limit, left), deadline)

    def _line_limit(self) -> int:
        """The longest channel line the call under way may answer with (a run file's is longer)."""
        under_way = self._under_way()
        return RUN_LINE_LIMIT if under_way is not None and under_way.large else LINE_LIMIT

    def _under_way(self) -> Call | None:
        """The call to answer next (None: none is left)."""
        return self.calls[self.next_index] if self.next_index < len(self.calls) else None

    def _take(self, child: Child, message: Message, loaded: float) -> str | None:
        """One message from the child, in the order of the channel's protocol: None to read on, else
        how the child's run ends (``done`` or ``garbage``)."""
        if "landlock" in message:  # the uid mode's first word: the Landlock ABI that confines it (0: none)
            return self._landlock(message["landlock"])
        if "jail_pid" in message:  # only the launcher's first word, in a jail, about its own child
            return self._jail_pid(child, message["jail_pid"])
        if self._starts_import(message):
            self.importing = message["importing"]
        elif "imported" in message and self.importing is not None and message["imported"] == self.importing:
            self._imported(message.get("error"))
        elif message.get("ready") is True and not self.started and self.importing is None:
            self._ready(child)
        elif "disallowed_import" in message:
            self._import_seen(self.result.disallowed_imports, message["disallowed_import"])
        elif "banned_import" in message:
            self._import_seen(self.result.banned_imports, message["banned_import"])
        elif self._answers(message):
            self._answer(child, message, loaded)
        elif message.get("done") is True:
            return "done" if self.next_index >= len(self.calls) and self.sent is None else "garbage"
        else:
            return self._garbage(message)
        return None

    def _ready(self, child: Child) -> None:
        """The child has imported its graded files: calls are under way, the first one is sent."""
        self.started = True
        self.next_index = self._next(self.next_index)
        self._send(child)

    def _garbage(self, message: Message) -> str:
        """A message out of turn ends the child's run; an answer to a call already answered says that
        call split the process."""
        answered = message.get("i")
        if type(answered) is int and 0 <= answered < self.next_index and self.importing is None:
            self.duplicate = answered  # an answer came twice: that call split the process
        return "garbage"

    def _landlock(self, abi: object) -> str | None:
        """The uid mode's Landlock ABI, as its child's first word only (else garbage)."""
        if not (self.mode == Mode.UID and self.seen == 1 and type(abi) is int):
            return "garbage"
        self.result.landlock = abi
        return None

    def _jail_pid(self, child: Child, pid: object) -> str | None:
        """The jail launcher's child's pid, as its first word only, and a process it launched (else garbage)."""
        if not (self.mode == Mode.JAIL and self.seen == 1 and type(pid) is int and child.launched(pid)):
            return "garbage"
        child.watch(pid)
        self.arrival = None  # its clocks are PID 1's from now on: read them again at the next message
        return None

    def _starts_import(self, message: Message) -> bool:
        """Does the child say it starts importing a graded file it is to import, before it is ready?"""
        return (
            "importing" in message
            and not self.started
            and self.importing is None
            and message["importing"] in self.files
            and message["importing"] not in self.skip_files
        )

    def _imported(self, error: object) -> None:
        """The graded file being imported is imported (``error`` None) or raised."""
        assert self.importing is not None
        self.imported += 1
        self.result.imports[self.importing] = Outcome(
            status=OutcomeStatus.ERROR if error is not None else OutcomeStatus.OK, error=_error(error)
        )
        if error is not None:
            self.skip_files.add(self.importing)
        self.importing = None
        self.next_index = self._next(self.next_index)

    def _import_seen(self, seen: list[tuple[str, str]], module: object) -> None:
        """A module imported that is flagged, and during what (the file importing or the call under way)."""
        under_way = self._under_way()
        during = self.importing or (under_way.fn if under_way is not None else "")
        if len(seen) < MAX_BANNED:
            seen.append((str(module)[:100], during))

    def _answers(self, message: Message) -> bool:
        """Is ``message`` the answer to the call sent and under way?"""
        return (
            message.get("i") == self.next_index
            and self.started
            and self.sent is not None
            and self.next_index <= self.sent
            and self.next_index < len(self.calls)
        )

    def _answer(self, child: Child, message: Message, loaded: float) -> None:
        """The call under way answered: keep its outcome, charge its function, send the next call."""
        took = message.get("t")
        seconds = took if isinstance(took, (int, float)) else 0.0
        mutated = message.get("mutated") is True
        if "error" in message:
            outcome = Outcome(
                status=OutcomeStatus.ERROR, error=_error(message["error"]), seconds=seconds, mutated=mutated
            )
        else:
            outcome = Outcome(
                status=OutcomeStatus.VALUE,
                value=kept(message.get("value"), self.line_bytes),
                seconds=seconds,
                mutated=mutated,
            )
        self.result.outcomes[self.next_index] = outcome
        function = self.calls[self.next_index].fn
        mark = parent_waited()  # read once: the delay of this call, the start of the next one's
        charged = max(self.last_message - self.sent_at - loaded - self._parent_delay(mark), self.used, 0.0)
        self.spent[function] = self.spent.get(function, 0.0) + charged
        self.next_index = self._next(self.next_index + 1)
        self._send(child, mark)

    def blame(self, ending: str, how: str, stderr: str) -> int | str | None:
        """Record what ended the child on the call (or import) under way; returns it."""
        tail = stderr.strip().splitlines()[-3:]
        detail = {
            "timeout": "used up its function's time budget" if self.budget_ran_out else "took too long",
            "eof": f"the process ended ({how})",
            "garbage": "wrote something that is not an answer to the grading channel",
        }[ending]
        if tail and ending == "eof":
            detail += ": " + " | ".join(line[:200] for line in tail)
        status = OutcomeStatus.TIMEOUT if ending == "timeout" else OutcomeStatus.CRASH
        if self.duplicate is not None:
            self.result.outcomes[self.duplicate] = Outcome(
                status=OutcomeStatus.CRASH, detail="the process split during this call (its answer came twice)"
            )
            return self.duplicate
        if self.importing:
            self.result.imports[self.importing] = Outcome(status=status, detail=detail)
            return self.importing
        if self.next_index >= len(self.calls):
            return None
        self.result.outcomes[self.next_index] = Outcome(status=status, detail=detail)
        function = self.calls[self.next_index].fn
        charged = max(time.monotonic() - self.sent_at - self.loaded - self._parent_delay(), self.used, 0.0)
        self.spent[function] = self.spent.get(function, 0.0) + charged
        return self.next_index

    def _waited_since_sent(self, child: Child) -> float:
        """What the child and this grader waited for a CPU since the call under way was sent (about:
        since the child's last message), so a busy machine does not make a short limit shorter."""
        now, before = child.waited(), self.last_waited
        child_wait = max(now - before, 0.0) if now is not None and before is not None else 0.0
        return child_wait + self._parent_delay()

    def _parent_delay(self, now: float | None = None) -> float:
        """What this grader waited for a CPU since the call was sent: the answer may have waited
        for it to be read, which no time budget of the submission is charged either (``now``: its
        wait read just now; else it is read here)."""
        now = parent_waited() if now is None else now
        return max(now - self.parent_mark, 0.0) if now is not None and self.parent_mark is not None else 0.0

    def _load(self, child: Child, fresh: bool = False) -> float:
        """Seconds the child waited for a CPU since its last message (0 where unknown): a
        function's time budget counts the time its calls took, less what the machine's load
        took, so a busy machine costs an honest submission nothing. It also notes the CPU time
        used since (``used``): a call is charged at least that, so a submission cannot make its
        calls look cheap by keeping the CPUs busy with threads of its own (it cannot start
        processes: the seccomp filter refuses them). The messages that arrived together (one
        read of the channel, ``arrival``) read the clocks once: the first is charged what was
        used since the last reading, the others nothing more, as reading again would find
        (``fresh``: read them all the same, as for what ended the child)."""
        arrival = getattr(child, "arrival", None)
        if arrival is not None and arrival == self.arrival and not fresh:
            self.used = 0.0
            return 0.0
        self.arrival = arrival
        previous, self.last_waited = self.last_waited, child.waited()
        before, self.last_cpu = self.last_cpu, child.cpu()
        self.used = max(self.last_cpu - before, 0.0) if before is not None and self.last_cpu is not None else 0.0
        if previous is None or self.last_waited is None:
            return 0.0
        return max(self.last_waited - previous, 0.0)


#: (process, thread) -> its ``/proc/thread-self/schedstat``, kept open and read again from its start (a
#: forked worker or another thread opens its own: the file is of the thread that opened it).
_SCHEDSTATS: dict[tuple[int, int], int] = {}


def parent_waited() -> float | None:
    """Seconds this thread of the grader has waited for a CPU (None where the kernel keeps none).
    Read twice per message: the file stays open (an open and a close per message cost more)."""
    key = (os.getpid(), threading.get_ident())
    try:
        if key not in _SCHEDSTATS:
            _SCHEDSTATS[key] = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(_SCHEDSTATS[key], 128, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _error(error: object) -> ErrorInfo | None:
    """An error description from the child, reduced to known fields of bounded size."""
    if not isinstance(error, dict):
        return None if error is None else {"type": "?", "mro": [], "message": "", "traceback": []}
    return {
        "type": str(error.get("type", "?"))[:100],
        "mro": [name for name in error.get("mro", []) if isinstance(name, str) and name in BUILTIN_ERRORS][:10]
        if isinstance(error.get("mro"), list)
        else [],
        "message": str(error.get("message", ""))[:500],
        "traceback": [str(line)[:300] for line in error.get("traceback", [])][:8]
        if isinstance(error.get("traceback"), list)
        else [],
    }
