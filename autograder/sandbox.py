"""Running a submission's calls in an isolated child process (the parent side).

``run(...)`` starts ``harness.py`` in a child enclosed as ``Isolation.mode`` says (see
``jail.py``), with resource limits, reads its channel with a per-call and a per-submission
time limit, and returns one ``Outcome`` per call. A call that hangs or kills the child costs
that call: the child is killed (its whole PID namespace, process group or uid) and a fresh
one continues with the next call; a function that does it twice loses its remaining calls.
Every byte from the child is parsed as untrusted data; nothing it writes survives.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.protocol import STARTUP_SECONDS, STRIKES, Outcome, Reader, SandboxResult, parse_line

HARNESS = Path(__file__).resolve().parent / "harness.py"
CHANNEL_LIMIT = 256 << 20      # all channel bytes of one submission, across its children


@dataclass(frozen=True)
class Isolation:
    """How children are enclosed: ``jail`` (namespaces), ``uid`` (another user) or ``none``."""
    mode: str
    python: str
    uid: int | None = None          # the first sandbox uid; worker slot n uses uid + n
    read_paths: tuple = ()          # jail: what the child can read (Python, its libraries)
    hidden_paths: tuple = ()        # jail: evaluation libraries covered inside the child's world
    banned: tuple = ()              # top-level modules metrics code may not import


@dataclass(frozen=True)
class Limits:
    call_seconds: float
    submission_seconds: float
    memory_mb: int
    output_kb: int
    file_mb: int = 64
    tmp_mb: int = 64
    processes: int = 16
    functions: int = 11             # the API's functions (rubric.FUNCTIONS): each gets an equal share

    def function_seconds(self) -> float:
        """The time all calls of one function may take together, so that one slow function
        cannot use up the others' time."""
        return self.submission_seconds / self.functions


class _Capture:
    """Keeps the first ``limit`` bytes of a stream and counts the rest."""

    def __init__(self, limit: int):
        self.limit, self.data, self.dropped = limit, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        self.data += chunk[:max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        return text + (f"\n[... {self.dropped} more bytes not kept]" if self.dropped else "")


def _remove_owned(uid: int) -> None:
    """Remove what ``uid`` left in the world-writable folders (uid mode has no private /tmp)."""
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def _kill_uid(uid: int) -> None:
    """Kill every process owned by ``uid`` (a sandbox uid only ever runs one submission)."""
    for _ in range(100):
        found = False
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if os.stat(entry.path).st_uid != uid:
                        continue
                    if Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                        continue  # already dead, waiting for its parent to reap it
                    os.kill(int(entry.name), signal.SIGKILL)
                    found = True
                except (OSError, ProcessLookupError, IndexError):
                    pass
        if not found:
            return
        time.sleep(0.01)


def _count_tasks(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid:
                    count += len(os.listdir(f"{entry.path}/task"))
            except OSError:
                pass
    return count


class _Child:
    """One child process and its channel."""

    def __init__(self, isolation: Isolation, config: dict, env: dict, work: Path, output: dict, received: int):
        read_end, write_end = os.pipe()
        config = {**config, "channel": write_end}
        self.process = subprocess.Popen(
            [isolation.python, "-I", "-B", str(HARNESS)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(write_end,), env=env, cwd=str(work), start_new_session=True)
        os.close(write_end)
        try:  # the configuration goes over stdin, not argv: /proc/PID/cmdline is readable by every uid
            self.process.stdin.write(json.dumps(config).encode() + b"\n")
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        self.channel, self.buffer, self.received, self.jail_pid = read_end, bytearray(), received, None
        self.selector = selectors.DefaultSelector()
        self.selector.register(read_end, selectors.EVENT_READ, "channel")
        self.selector.register(self.process.stdout, selectors.EVENT_READ, "stdout")
        self.selector.register(self.process.stderr, selectors.EVENT_READ, "stderr")
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
                fd = key.fd if key.data == "channel" else key.fileobj.fileno()
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
        """After the channel closed, keep what the child printed (briefly, without blocking)."""
        end = time.monotonic() + 0.2
        while self.selector.get_map() and time.monotonic() < end:
            for key, _ in self.selector.select(timeout=0.05):
                chunk = os.read(key.fileobj.fileno(), 1 << 20)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                else:
                    self.output[key.data].add(chunk)

    def watch(self, pid: int) -> None:
        """Hold a pidfd on the jail's PID 1 (a pid number could be reused once it is gone)."""
        if self.jail_pid is None and pid > 1:
            try:
                self.jail_pid = os.pidfd_open(pid)
            except OSError:
                pass

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
        if isolation.mode == "uid" and uid not in (None, 0, os.getuid()):
            _kill_uid(uid)
            _remove_owned(uid)
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
        self.selector.close()
        os.close(self.channel)
        self.process.stdout.close()
        self.process.stderr.close()
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit status {code}"


def _private_to(lab_dir: Path, uid: int) -> None:
    """uid mode: the submission's package readable by its own sandbox uid (as group) only."""
    for folder, dirs, files in os.walk(lab_dir):
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o750)
        for name in files:
            os.chown(os.path.join(folder, name), 0, uid)
            os.chmod(os.path.join(folder, name), 0o640)


def _environment(home: str) -> dict:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home,
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0"}


def run(lab_dir: Path, job_files: list, calls: list, limits: Limits, isolation: Isolation,
        slot: int = 0) -> SandboxResult:
    """Run ``calls`` (``[{"fn", "file"}, ...]``, the job's call list) against the ``lab05``
    package in ``lab_dir``; the job files hold the calls' inputs."""
    started = time.monotonic()
    uid = isolation.uid + slot if isolation.uid is not None else None
    result = SandboxResult(outcomes=[None] * len(calls))
    output = {"stdout": _Capture(limits.output_kb << 10), "stderr": _Capture(limits.output_kb << 10)}
    strikes: dict[str, int] = {}
    spent: dict[str, float] = {}      # seconds each function has used
    received = 0                      # channel bytes so far, all children together
    skip, skip_files, budget_gone = set(), set(), set()
    start = 0
    deadline = started + limits.submission_seconds + 2 * STARTUP_SECONDS
    with tempfile.TemporaryDirectory(prefix="lab05-child-") as scratch:
        scratch = Path(scratch)
        os.chmod(scratch, 0o711)
        work, jail_root = scratch / "work", scratch / "root"
        work.mkdir()
        jail_root.mkdir()
        if isolation.mode == "uid":
            os.chown(work, uid, uid)
            os.chmod(work, 0o700)
            _private_to(lab_dir, uid)
        processes = limits.processes
        if isolation.mode == "jail" and os.getuid() != 0:
            processes += _count_tasks(os.getuid())
        home = "/scratch" if isolation.mode == "jail" else str(work)
        env = _environment(home)
        while True:
            config = {
                "jobs": [str(path) for path in job_files], "lab_dir": str(lab_dir), "start": start,
                "skip": sorted(skip), "skip_files": sorted(skip_files), "isolation": isolation.mode,
                "uid": uid, "work_dir": str(work), "jail_root": str(jail_root),
                "jail_read": list(isolation.read_paths), "jail_hide": list(isolation.hidden_paths),
                "banned": list(isolation.banned), "environment": env,
                "limits": {"memory_mb": limits.memory_mb, "file_mb": limits.file_mb, "tmp_mb": limits.tmp_mb,
                           "processes": processes, "cpu_seconds": limits.submission_seconds + 5},
            }
            child = _Child(isolation, config, env, work, output, received)
            state = Reader(calls, start, skip, skip_files, result, spent, isolation.mode)
            try:
                ending = state.read(child, limits, deadline)
            finally:
                how = child.kill(isolation, uid)
                received = child.received
            if ending == "done":
                break
            blamed = state.blame(ending, how, output["stderr"].text())
            if blamed is None:  # nothing left to run, or the submission's time is up
                break
            function = calls[blamed]["fn"] if isinstance(blamed, int) else None
            if function:
                strikes[function] = strikes.get(function, 0) + 1
                out_of_budget = ending == "timeout" and state.budget_ran_out
                if strikes[function] >= STRIKES or out_of_budget:
                    skip.add(function)
                    if out_of_budget:
                        budget_gone.add(function)
                start = max(blamed + 1, state.next_index)
            else:
                skip_files.add(blamed)
                start = state.next_index
            result.restarts += 1
            if time.monotonic() >= deadline:
                result.notes.append(f"the submission's time limit ({limits.submission_seconds:g} s) ran out")
                break
            if start >= len(calls):
                break
    for index, outcome in enumerate(result.outcomes):
        if outcome is None:
            call = calls[index]
            if call["file"] in result.imports and result.imports[call["file"]].status != "ok":
                reason = f"lab05/{call['file']} did not import"
            elif call["fn"] in budget_gone:
                reason = (f"{call['fn']} used up its time budget ({limits.function_seconds():.1f} s for all its "
                          "cases); its other cases were not run")
            elif call["fn"] in skip:
                reason = f"{call['fn']} crashed or hung {STRIKES} times; its other cases were not run"
            elif time.monotonic() >= deadline:
                reason = f"the submission's time limit ({limits.submission_seconds:g} s) ran out first"
            else:
                reason = "not run"
            result.outcomes[index] = Outcome("not-run", detail=reason)
    result.stdout, result.stderr = output["stdout"].text(), output["stderr"].text()
    result.elapsed = time.monotonic() - started
    return result


