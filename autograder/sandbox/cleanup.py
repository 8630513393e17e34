"""Sweeping up after a sandbox uid (the uid mode, where no namespace ends everything at once):
the files it may read, the processes it left, the files it left in the shared temporary folders."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path


def private_to(lab_dir: Path, uid: int) -> None:
    """uid mode: the submission's package readable by its own sandbox uid (as group) only."""
    for folder, _dirs, files in os.walk(lab_dir):
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o750)
        for name in files:
            os.chown(os.path.join(folder, name), 0, uid)
            os.chmod(os.path.join(folder, name), 0o640)


def remove_owned(uid: int) -> None:
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


def _processes(uid: int) -> Iterator[tuple[int, str]]:
    """``(pid, its /proc folder)`` of every process of ``uid`` (the processes vanishing meanwhile left out)."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid:
                    yield int(entry.name), entry.path
            except OSError:
                pass


def _stat(folder: str) -> list[str]:
    """The fields of ``folder/stat`` after the command's name: state, parent, ... ([] if gone)."""
    try:
        return Path(folder, "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def live_tasks(uid: int) -> list[str]:
    """The threads of ``uid`` that still run (any state but dead): a process whose leader has
    exited while another of its threads goes on shows as a zombie, its thread does not."""
    found = []
    for pid, folder in _processes(uid):
        try:
            tasks = os.listdir(f"{folder}/task")
        except OSError:
            continue
        for task in tasks:
            if _stat(f"{folder}/task/{task}")[:1] not in ([], ["Z"], ["X"]):
                found.append(f"{pid}/{task}")
    return found


def adopt_orphans() -> None:
    """Make this process the reaper of every process its children leave behind (Linux's child
    subreaper; it is not inherited, so each process that starts children sets it). Without it an
    orphan goes to PID 1, whose zombies may wait seconds to be reaped (some containers' PID 1
    never reaps them), and a zombie still counts against its uid's process limit: the next
    submission on that uid could not fork at all."""
    import ctypes

    if getattr(adopt_orphans, "done", 0) == os.getpid():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) == 0:  # PR_SET_CHILD_SUBREAPER
        adopt_orphans.done = os.getpid()  # type: ignore[attr-defined]


def kill_uid(uid: int, patience: float = 2.0) -> None:
    """Kill every process and thread of ``uid``, whatever its state, session or threads: a helper
    becomes ``uid`` and sends SIGKILL to every process it may signal (``kill(-1)``), until no task
    of ``uid`` runs; then reap the zombies this process adopted (``adopt_orphans``) and wait up
    to ``patience`` seconds for any other parent to reap the rest. A sandbox uid only ever runs
    one submission's code."""
    if uid in (0, os.getuid()):
        raise ValueError(f"kill_uid: refusing to kill every process of uid {uid}")
    for _ in range(50):
        if not live_tasks(uid):
            break
        helper = os.fork()
        if helper == 0:  # pragma: no cover (the helper's own process)
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(helper, 0)
        time.sleep(0.01)
    deadline = time.monotonic() + patience
    while _reap_adopted(uid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _reap_adopted(uid: int) -> int:
    """Reap the zombies of ``uid`` whose parent is this process; the number of ``uid``'s
    processes still there (zombies of other parents included)."""
    left = 0
    for pid, folder in _processes(uid):
        fields = _stat(folder)
        if fields[:2] == ["Z", str(os.getpid())]:
            try:
                os.waitpid(pid, os.WNOHANG)
                continue
            except ChildProcessError:
                pass
        left += 1 if fields else 0
    return left


def count_tasks(uid: int) -> int:
    """How many threads ``uid`` has (every state)."""
    count = 0
    for _, folder in _processes(uid):
        try:
            count += len(os.listdir(f"{folder}/task"))
        except OSError:
            pass
    return count
