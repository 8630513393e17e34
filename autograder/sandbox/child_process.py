"""One child process and its channel: starting it, reading what it sends, killing it and all it started."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from pathlib import Path

from autograder.sandbox import cleanup
from autograder.sandbox.channel import CHANNEL_LIMIT, parse_line
from autograder.sandbox.settings import Isolation, Mode

HARNESS = Path(__file__).resolve().parent / "child" / "harness.py"


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


class ChildProcess:
    """One child process and its channel."""

    def __init__(self, isolation: Isolation, config: dict, env: dict, work: Path, output: dict, received: int):
        read_end, write_end = os.pipe()
        config = {**config, "channel": write_end}
        if isolation.mode == Mode.UID:
            cleanup.adopt_orphans()  # what the child leaves behind is reaped here (kill_uid)
        self.process = subprocess.Popen(
            [isolation.python, "-I", "-B", str(HARNESS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_end,),
            env=env,
            cwd=str(work),
            start_new_session=True,
        )
        os.close(write_end)
        assert self.process.stdin and self.process.stdout and self.process.stderr  # all three are pipes
        self.stdout, self.stderr = self.process.stdout, self.process.stderr
        try:  # the configuration goes over stdin, not argv: /proc/PID/cmdline is readable by every uid
            self.process.stdin.write(json.dumps(config).encode() + b"\n")
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        self.channel, self.buffer, self.received = read_end, bytearray(), received
        self.jail_pid: int | None = None  # a pidfd on the jail's PID 1, once reported
        self.stats = _schedstat(self.process.pid)  # of the process running the calls (in a jail: its PID 1)
        self.selector = selectors.DefaultSelector()
        self.selector.register(read_end, selectors.EVENT_READ, "channel")
        self.selector.register(self.stdout, selectors.EVENT_READ, "stdout")
        self.selector.register(self.stderr, selectors.EVENT_READ, "stderr")
        self.output = output

    def messages(self, deadline_of, line_limit):
        """Yield parsed channel messages; ``("timeout",)``, ``("eof",)`` or ``("garbage", why)``
        end the stream. A line longer than ``line_limit()``, too deeply nested, or not a JSON
        object is garbage, and so is more than ``CHANNEL_LIMIT`` bytes in all."""
        while True:
            for event in self._parsed(line_limit):
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
            if not self.selector.get_map():
                yield ("eof",)
                return
            for key, _ in self.selector.select(timeout=min(remaining, 1.0)):
                fd = key.fd
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                    if key.data == "channel":
                        self._drain_output()
                        for event in self._parsed(line_limit):
                            yield event
                            if event[0] == "garbage":
                                return
                        yield ("eof",)
                        return
                    continue
                if key.data == "channel":
                    self.buffer += chunk
                    self.received += len(chunk)
                else:
                    self.output[key.data].add(chunk)

    def _parsed(self, line_limit):
        """The complete lines received so far, as ``("message", dict)`` up to the first garbage."""
        for line in self._complete_lines():
            message = parse_line(line, line_limit())
            if message is None:
                yield ("garbage", line[:200])
                return
            yield ("message", message)

    def _complete_lines(self) -> list:
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
            if key.data == "channel":
                self.selector.unregister(key.fileobj)
        end = time.monotonic() + 0.2
        while self.selector.get_map() and time.monotonic() < end:
            for key, _ in self.selector.select(timeout=0.05):
                chunk = os.read(key.fd, 1 << 20)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                else:
                    self.output[key.data].add(chunk)

    def watch(self, pid: int) -> None:
        """Hold a pidfd on the jail's PID 1 (a pid number could be reused once it is gone)."""
        if self.jail_pid is None and pid > 1:
            try:
                self.jail_pid = os.pidfd_open(pid)
                _close(self.stats)
                self.stats = _schedstat(pid)
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

    def kill(self, isolation: Isolation, uid: int | None) -> str:
        """Kill the child and all it started; returns how it ended."""
        if self.jail_pid is not None:
            try:
                signal.pidfd_send_signal(self.jail_pid, signal.SIGKILL)  # PID 1: its namespace dies with it
            except OSError:
                pass
            os.close(self.jail_pid)
            try:
                self.process.wait(timeout=2)  # the launcher reaps PID 1, then ends: no zombie is left
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = self.process.wait()
        if isolation.mode == Mode.UID and uid not in (None, 0, os.getuid()):
            cleanup.kill_uid(uid)
            cleanup.remove_owned(uid)
        self._drain_output()  # what it printed just before it ended, still in the pipes
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
        self.selector.close()
        os.close(self.channel)
        _close(self.stats)
        self.stats = None
        self.stdout.close()
        self.stderr.close()
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit status {code}"


def _schedstat(pid: int) -> int | None:
    """A descriptor of ``/proc/PID/schedstat`` (None where the kernel has no such file)."""
    try:
        return os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _close(descriptor: int | None) -> None:
    if descriptor is not None:
        os.close(descriptor)
