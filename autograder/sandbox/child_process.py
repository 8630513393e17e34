"""One child process and its channel: starting it, reading what it sends, killing it and all it started."""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox import cleanup, leases, scratch
from autograder.sandbox.channel import Event, parse_line
from autograder.sandbox.settings import CHANNEL_LIMIT, ChildConfig, Isolation, Mode

HARNESS = Path(__file__).resolve().parent / "child" / "harness.py"

#: Bytes queued for a child's inbox before they are written (what is left is written before the
#: next wait for the child): a batch of public calls goes out in a few large writes, not one per call,
#: and the child has its first calls while the rest are still being made.
WRITE_AT = 64 << 10
#: The inbox pipe's size, where the kernel grants it (else its default, 64 KiB): a batch of
#: public calls (about 4 MB for this lab) needs a few writes, each waking the child once.
INBOX_PIPE = 1 << 20


class Capture:
    """Keeps the first ``limit`` bytes of a stream and counts the rest."""

    def __init__(self, limit: int):
        self.limit, self.data, self.dropped = limit, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        self.data += chunk[: max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        return text + (f"\n[... {self.dropped} more bytes not kept]" if self.dropped else "")


class Output:
    """What one submission's children print, in two parts: what was printed before any child of the
    submission received a secret call's inputs (its student may see it), and what came after, in
    any graded file (instructors only: it could carry hidden inputs, through the child's own output
    or through kernel state a later child reads). Each part keeps ``limit`` bytes of stdout
    and of stderr."""

    def __init__(self, limit: int):
        self.shown = {"stdout": Capture(limit), "stderr": Capture(limit)}
        self.kept = {"stdout": Capture(limit), "stderr": Capture(limit)}
        self.secret = False  # set before a secret call's inputs are first sent; never cleared

    def add(self, stream: str, chunk: bytes) -> None:
        (self.kept if self.secret else self.shown)[stream].add(chunk)

    def stderr(self) -> str:
        """The stderr of the part under way (for what ended a child)."""
        return (self.kept if self.secret else self.shown)["stderr"].text()


def frame(data: bytes) -> bytes:
    """One inbox message: a 4-byte length, then the bytes (``sandbox/child/harness.py: Inbox``)."""
    return len(data).to_bytes(4, "big") + data


@dataclass
class _Spare:
    """A child interpreter started (``-I -B harness.py``, its channel's pipe passed on) whose harness
    waits for its configuration on stdin: it has run nothing but Python's start and the harness's
    imports (no configuration, no enclosing, no graded code), so a child handed it is the child a
    fresh start would have made, less the wait."""

    process: subprocess.Popen[bytes]
    channel: int  # the channel's read end, this process's
    channel_number: int  # its write end's number in the child (the configuration's "channel")
    key: tuple[str, tuple[tuple[str, str], ...]]  # what it was started with: the interpreter, the environment
    owner: int  # the process that started it (a forked batch worker never takes its parent's)

    @classmethod
    def start(cls, python: str, env: dict[str, str], cwd: str) -> _Spare:
        read_end, write_end = os.pipe()
        try:
            process = subprocess.Popen(
                [python, "-I", "-B", str(HARNESS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(write_end,),
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        return cls(process, read_end, write_end, (python, tuple(sorted(env.items()))), os.getpid())

    def discard(self) -> None:
        """End it unused (its harness has run no graded code: nothing of it to sweep)."""
        self.process.kill()
        self.process.wait()
        os.close(self.channel)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


#: The spare interpreter of each kind this process started, waiting for its child (``start_spare``).
_SPARES: dict[tuple[str, tuple[tuple[str, str], ...]], _Spare] = {}


def start_spare(isolation: Isolation, env: dict[str, str]) -> None:
    """Start a child interpreter for the next child of the namespace jail (``env``: what every child
    of it starts with), unless one is waiting: its start (Python, the harness's imports; some 50 ms)
    then overlaps what the grader does before that child. The jail's children only: where a child
    starts with its own environment (the uid mode names its work folder there), none would fit.
    Its folder is ``/`` until the harness enters the jail (which moves it to its scratch)."""
    if isolation.mode != Mode.JAIL:
        return
    key = (isolation.python, tuple(sorted(env.items())))
    found = _SPARES.get(key)
    if found is not None and found.owner == os.getpid() and found.process.poll() is None:
        return
    if not _SPARES:
        atexit.register(discard_spares)
    _SPARES[key] = _Spare.start(isolation.python, env, "/")


def _take_spare(isolation: Isolation, env: dict[str, str]) -> _Spare | None:
    """This process's spare for a child of ``isolation`` started with ``env``, if one is waiting."""
    if isolation.mode != Mode.JAIL:
        return None
    spare = _SPARES.pop((isolation.python, tuple(sorted(env.items()))), None)
    if spare is None or spare.owner != os.getpid():
        return None  # a forked worker's copy of its parent's: the parent's to end
    if spare.process.poll() is not None:  # it ended waiting (killed from outside): a fresh start instead
        spare.discard()
        return None
    return spare


def discard_spares() -> None:
    """End the spares this process started (at exit; before a batch forks its workers, which start
    their own: a spare left waiting in the parent would hold its memory for the whole batch)."""
    for spare in list(_SPARES.values()):
        if spare.owner == os.getpid():
            spare.discard()
    _SPARES.clear()


class ChildProcess:
    """One child process, its inbox (stdin: the parent's messages) and its channel."""

    def __init__(
        self, isolation: Isolation, config: ChildConfig, env: dict[str, str], work: Path, output: Output, received: int
    ):
        self.scratch: scratch.Watch | None = None  # the uid mode's bounds on its work folder
        self.overflowed = False  # killed for filling its scratch past every refusal (scratch.OVERFLOW)
        self.looked_at = -1  # bytes received when the scratch was last looked at for an answer
        if isolation.mode == Mode.UID:
            cleanup.adopt_orphans()  # what the child leaves behind is reaped here (kill_uid)
            uid, limits = config.get("uid"), config["limits"]
            if uid is not None:  # the scratch bounded as the jail's /scratch is
                self.scratch = scratch.Watch(work, uid, limits["tmp_mb"] << 20, limits["tmp_inodes"])
        spare = _take_spare(isolation, env)
        if spare is None:
            spare = _Spare.start(isolation.python, env, str(work))
        self.process, read_end, write_end = spare.process, spare.channel, spare.channel_number
        config = {**config, "channel": write_end}
        assert self.process.stdin and self.process.stdout and self.process.stderr  # all three are pipes
        self.stdout, self.stderr = self.process.stdout, self.process.stderr
        self.inbox: int | None = self.process.stdin.fileno()
        self.outbox = bytearray()
        try:  # the configuration goes over stdin, not argv: /proc/PID/cmdline is readable by every uid
            self.process.stdin.write(frame(json.dumps(config).encode()))
            self.process.stdin.flush()
        except BrokenPipeError:
            self.inbox = None
        if self.inbox is not None:
            os.set_blocking(self.inbox, False)  # a child that stops reading cannot block the grader
            try:
                fcntl.fcntl(self.inbox, fcntl.F_SETPIPE_SZ, INBOX_PIPE)
            except OSError:  # past this user's pipe allowance: the default size only costs more writes
                pass
        self.channel, self.buffer, self.received = read_end, bytearray(), received
        self.arrival = 0  # reads of the channel so far: the messages of one read arrived together
        self.jail_pid: int | None = None  # a pidfd on the jail's PID 1, once reported
        self.stats = _proc(self.process.pid, "schedstat")  # of the process running the calls (in a jail: its PID 1)
        self.usage = _proc(self.process.pid, "stat")  # its CPU time, all its threads
        self.selector = selectors.DefaultSelector()
        self.selector.register(read_end, selectors.EVENT_READ, "channel")
        self.selector.register(self.stdout, selectors.EVENT_READ, "stdout")
        self.selector.register(self.stderr, selectors.EVENT_READ, "stderr")
        if self.scratch is not None and self.scratch.fileno() >= 0:
            self.selector.register(self.scratch.fileno(), selectors.EVENT_READ, "scratch")
        self.output = output
        self.work = work  # its work folder (the uid mode's scratch)
        self.cpu_used = 0.0  # CPU seconds it used, all it reaped included (known once it is reaped)
        self.ended_by: int | None = None  # the signal that ended it, once it is reaped
        start_spare(isolation, env)  # the next child's interpreter starts while this one works

    def send(self, data: bytes | None) -> None:
        """Queue one message for the child (``None``: the end); written once ``WRITE_AT`` bytes are
        queued, else before ``messages`` next waits for the child (so a batch of calls goes out in a
        few writes), and on as the pipe takes it (when it is full, ``messages`` writes on when it is not)."""
        self.outbox += frame(data or b"")
        if len(self.outbox) >= WRITE_AT and not self._writing():
            self._write()

    def _writing(self) -> bool:
        """Is the pipe full, its queue written on when it has room again?"""
        return self.inbox is not None and self.inbox in self.selector.get_map()

    def _write(self) -> None:
        if self.inbox is None or not self.outbox:
            return
        try:
            with memoryview(self.outbox) as queued, queued[: 1 << 20] as chunk:  # no copy of a long queue
                written = os.write(self.inbox, chunk)
        except BlockingIOError:
            written = 0
        except OSError:  # the child is gone: what it would have read no longer matters
            self.outbox.clear()
            written = 0
        del self.outbox[:written]
        writing = bool(self.outbox)
        try:
            key = self.selector.get_key(self.inbox)
            if not writing:
                self.selector.unregister(key.fileobj)
        except KeyError:
            if writing:
                self.selector.register(self.inbox, selectors.EVENT_WRITE, "inbox")

    def drain(self) -> None:
        """Read what the child has printed so far without waiting (before a secret call goes out)."""
        for key, _ in self.selector.select(timeout=0):
            if key.data in ("stdout", "stderr"):
                chunk = os.read(key.fd, 1 << 20)
                if chunk:
                    self.output.add(key.data, chunk)

    def messages(self, deadline_of: Callable[[], float], line_limit: Callable[[], int]) -> Iterator[Event]:
        """Yield parsed channel messages; ``("timeout",)``, ``("eof",)`` or ``("garbage", why)``
        end the stream. A line longer than ``line_limit()``, too deeply nested, or not a JSON
        object is garbage, and so is more than ``CHANNEL_LIMIT`` bytes in all."""
        while True:
            for event in self._parsed(line_limit):
                if self._answered_past_scratch(event):
                    yield ("eof",)
                    return
                yield event
                if event[0] == "garbage":
                    return
            if len(self.buffer) > line_limit() or self.received > CHANNEL_LIMIT:
                yield ("garbage", b"(more output on the grading channel than any answer needs)")
                return
            remaining = deadline_of() - time.monotonic()
            if remaining <= 0:
                yield ("timeout",)
                return
            if self.outbox and not self._writing():
                self._write()  # what was queued since the last wait
            if all(key.data == "scratch" for key in self.selector.get_map().values()):
                yield ("eof",)
                return
            tick = 1.0 if self.scratch is None else scratch.TICK
            for key, _ in self.selector.select(timeout=min(remaining, tick)):
                fd = key.fd
                if key.data == "inbox":
                    self._write()
                    continue
                if key.data == "scratch":
                    continue  # measured below
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                    if key.data == "channel":
                        self._drain_output()
                        for event in self._parsed(line_limit):
                            if self._answered_past_scratch(event):
                                yield ("eof",)
                                return
                            yield event
                            if event[0] == "garbage":
                                return
                        yield ("eof",)
                        return
                    continue
                if key.data == "channel":
                    self.buffer += chunk
                    self.received += len(chunk)
                    self.arrival += 1
                else:
                    self.output.add(key.data, chunk)
            self._watch_scratch()

    def _answered_past_scratch(self, event: Event) -> bool:
        """The uid mode, when an answer arrives: a final look at the work folder first
        (``scratch.Watch.check``'s ``final``), so that bytes written between two looks through mmap
        (which wake nothing and meet no refusal) are found however fast the child answers. A child
        past the bound (``scratch.OVERFLOW``) that answers with a value is killed instead of
        answered, as the jail's full tmpfs would have ended it; an error (the refusal reached it)
        is its answer, as in the jail."""
        if self.scratch is None or event[0] != "message" or "i" not in event[1]:
            return False
        if self.looked_at != self.received:  # once for the answers that arrived together
            self.looked_at = self.received
            self._look(final=True)
        if "value" not in event[1] or not self.scratch.overflow:
            return False
        self._kill_overflowed()
        return True

    def _watch_scratch(self) -> None:
        """The uid mode: measure the work folder if it changed (or a ``scratch.TICK`` went by); past
        the bound by ``scratch.OVERFLOW``, kill the child."""
        self._look()
        if self.scratch is not None and self.scratch.overflow:
            self._kill_overflowed()

    def _look(self, final: bool = False) -> None:
        """Measure the work folder (``scratch.Watch.check``); once it is full, say so in the
        instructor's part of the output (the child's errors say it too)."""
        if self.scratch is not None and self.scratch.check(final=final):
            self.output.kept["stderr"].add(f"\n[grader: {self.scratch.full} (found {self.scratch.found})]\n".encode())

    def _kill_overflowed(self) -> None:
        """Kill the child that filled its scratch past every refusal (once)."""
        if self.scratch is not None and not self.overflowed:
            self.overflowed = True  # filled past every refusal: killed, as a full tmpfs's SIGBUS ends it
            self.output.kept["stderr"].add(
                f"\n[grader: killed, past its scratch's bound ({self.scratch.found})]\n".encode()
            )
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _parsed(self, line_limit: Callable[[], int]) -> Iterator[Event]:
        """The complete lines received so far, as ``("message", dict, bytes of its line)`` up to the
        first garbage."""
        for line in self._complete_lines():
            message = parse_line(line, line_limit())
            if message is None:
                yield ("garbage", line[:200])
                return
            yield ("message", message, len(line))

    def _complete_lines(self) -> list[bytearray]:
        if b"\n" not in self.buffer:
            return []
        *lines, rest = self.buffer.split(b"\n")
        self.buffer = bytearray(rest)
        return lines

    def launched(self, pid: int) -> bool:
        """Is ``pid`` a child of this child's launcher (so that the jail's PID 1 report is true)?"""
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        parent = next((line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), "")
        return parent == str(self.process.pid)

    def _drain_output(self) -> None:
        """After the channel closed or the child ended, keep what it printed (briefly, without
        blocking: a process it left could hold the pipes open)."""
        for key in list(self.selector.get_map().values()):
            if key.data in ("channel", "inbox", "scratch"):
                self.selector.unregister(key.fileobj)
        end = time.monotonic() + 0.2
        while self.selector.get_map() and time.monotonic() < end:
            for key, _ in self.selector.select(timeout=0.05):
                chunk = os.read(key.fd, 1 << 20)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                else:
                    self.output.add(key.data, chunk)

    def watch(self, pid: int) -> None:
        """Hold a pidfd on the jail's PID 1 (a pid number could be reused once it is gone)."""
        if self.jail_pid is None and pid > 1:
            try:
                self.jail_pid = os.pidfd_open(pid)
                _close(self.stats)
                _close(self.usage)
                self.stats, self.usage = _proc(pid, "schedstat"), _proc(pid, "stat")
            except OSError:
                pass

    def waited(self) -> float | None:
        """Seconds the process running the calls has spent ready to run but waiting for a CPU
        (the kernel's scheduler statistics; None where the kernel keeps none): time the machine's
        load took, which no time budget of the submission is charged. Read once per message: the
        file stays open and is read again from its start."""
        if self.stats is None:
            return None
        try:
            return int(os.pread(self.stats, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None

    def cpu(self) -> float | None:
        """Seconds of CPU the process running the calls has used, all its threads together (None
        where unknown): a call is charged at least this, so threads that keep the CPUs busy to make
        the call look like it was waiting cost what they use."""
        if self.usage is None:
            return None
        try:
            fields = os.pread(self.usage, 1024, 0).rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICKS
        except (OSError, ValueError, IndexError):
            return None

    def _wait(self, timeout: float | None) -> int | None:
        """Reap the child (waiting up to ``timeout`` seconds; None: as long as it takes) and note the
        CPU time it and what it reaped used (``cpu_used``); its exit code, or None if it lives on."""
        end = None if timeout is None else time.monotonic() + timeout
        if timeout is not None:
            _until_ended(self.process.pid, timeout)  # at once when it ends (no polling step to sleep through)
        while True:
            try:
                pid, status, usage = os.wait4(self.process.pid, 0 if end is None else os.WNOHANG)
            except ChildProcessError:  # reaped already
                return self.process.returncode if self.process.returncode is not None else self.process.wait()
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                self.cpu_used = usage.ru_utime + usage.ru_stime
                return self.process.returncode
            if end is not None and time.monotonic() >= end:
                return None
            time.sleep(0.01)

    def _signal_of(self, code: int, jail: bool) -> int | None:
        """The signal that ended the child (a jail's launcher passes its PID 1's on as 128 + it)."""
        if code < 0:
            return -code
        return code - 128 if jail and code > 128 else None

    def kill(self, isolation: Isolation, uid: int | None) -> str:
        """Kill the child and all it started; returns how it ended (``ended_by``: the signal that
        ended it, if one did)."""
        jail = self.jail_pid is not None
        if self.jail_pid is not None:
            try:
                signal.pidfd_send_signal(self.jail_pid, signal.SIGKILL)  # PID 1: its namespace dies with it
            except OSError:
                pass
            os.close(self.jail_pid)
            self._wait(2.0)  # the launcher reaps PID 1, then ends: no zombie is left
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = self._wait(None)
        code = code if code is not None else self.process.wait()
        self.ended_by = None if self.overflowed else self._signal_of(code, jail)  # the grader's own kill
        if isolation.mode == Mode.UID and uid is not None and leases.held(uid):  # never a uid it does not hold
            cleanup.sweep(uid, self.work)  # the next child of this uid finds nothing of this one
        self._drain_output()  # what it printed just before it ended, still in the pipes
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
        self.selector.close()
        if self.scratch is not None:
            self.scratch.close()
        os.close(self.channel)
        _close(self.stats)
        _close(self.usage)
        self.stats = self.usage = None
        self.stdout.close()
        self.stderr.close()
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        self.inbox = None
        if self.overflowed and self.scratch is not None and self.scratch.full is not None:
            return f"killed: {self.scratch.full}"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit status {code}"


_TICKS = os.sysconf("SC_CLK_TCK")


def _proc(pid: int, name: str) -> int | None:
    """A descriptor of ``/proc/PID/NAME``, kept open and read again from its start (None where the
    kernel has no such file)."""
    try:
        return os.open(f"/proc/{pid}/{name}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _until_ended(pid: int, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for this process's own unreaped child ``pid`` to end: a pidfd
    becomes readable the moment it does (its number cannot be reused before it is reaped). Returns
    at once where the kernel has no pidfd or the child is already reaped; the caller then reaps it."""
    try:
        descriptor = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return
    try:
        select.select([descriptor], [], [], timeout)
    finally:
        os.close(descriptor)


def _close(descriptor: int | None) -> None:
    if descriptor is not None:
        os.close(descriptor)
