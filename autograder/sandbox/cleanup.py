"""Sweeping up after a sandbox uid (the uid mode, where no namespace ends everything at once):
the files it may read, the processes it left, the files it left in its work folder and in the
shared folders every user may write to, its System V IPC objects and its POSIX message queues.

``sweep(uid, work)`` does all of it, in that order (its processes first, so that nothing it runs
makes more meanwhile): after every child of the uid mode (``child_process.ChildProcess.kill``) and
when a grader first takes a uid (``leases.lease``: a dead grader may have left things). In the jail
the namespaces do it: its IPC and mount namespaces, its /scratch, end with its PID 1."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import sys
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


#: The folders every user may write to (the uid mode has no private /tmp; where the kernel has no
#: Landlock, a child may write to any of them). /dev/mqueue holds the POSIX message queues.
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock", "/var/lock", "/var/crash", "/var/mail")
SHARED_DEPTH = 8  # how deep ``remove_owned`` looks in folders other users may write to


def sweep(uid: int, work: Path | None = None) -> None:
    """Leave nothing of ``uid``: its processes and threads, its System V IPC objects, its POSIX
    message queues, its files in the shared folders, and everything in ``work`` (its work folder,
    emptied, kept)."""
    kill_uid(uid)
    remove_ipc(uid)
    remove_queues(uid)
    remove_owned(uid)
    if work is not None:
        empty(work)


def empty(folder: Path) -> None:
    """Remove everything in ``folder`` (never following a link out of it); the folder stays."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        _remove(entry)


def _remove(entry: os.DirEntry[str]) -> None:
    try:
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)
    except OSError:
        pass


def remove_owned(uid: int, folders: tuple[str, ...] = SHARED_FOLDERS) -> None:
    """Remove what ``uid`` left in ``folders`` (the shared ones), at any depth up to
    ``SHARED_DEPTH``: its own entries (a folder of its with all in it), looking inside the folders
    of others that every user may write to (never following a link)."""
    for folder in folders:
        _remove_owned(folder, uid, SHARED_DEPTH)


def _remove_owned(folder: str, uid: int, depth: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_uid == uid:
            _remove(entry)
        elif depth > 0 and stat.S_ISDIR(info.st_mode) and info.st_mode & 0o002:
            _remove_owned(entry.path, uid, depth - 1)


#: System V IPC: each kind's /proc/sysvipc table and how to remove one (``ctl(id, IPC_RMID, ...)``).
IPC_KINDS = ("shm", "msg", "sem")
IPC_RMID = 0


def ipc_objects(uid: int) -> list[tuple[str, int]]:
    """``(kind, id)`` of every System V IPC object of ``uid`` in this IPC namespace (``ipc_ids``)."""
    found = []
    for kind in IPC_KINDS:
        try:
            table = Path(f"/proc/sysvipc/{kind}").read_text()
        except OSError:
            continue
        found += [(kind, number) for number in ipc_ids(table, uid)]
    return found


def ipc_ids(table: str, uid: int) -> list[int]:
    """The ids in a /proc/sysvipc table (a header line, then a row per object) of the objects owned
    by ``uid`` or created by it (``cuid``: an owner may give its object to another uid, never its
    creator)."""
    lines = table.splitlines()
    header = lines[0].split() if lines else []
    found = []
    for line in lines[1:]:
        row = dict(zip(header, line.split()))
        try:
            if uid in (int(row["uid"]), int(row["cuid"])):
                found.append(int(row[header[1]]))  # shmid, msqid, semid
        except (KeyError, ValueError, IndexError):
            continue
    return found


def remove_ipc(uid: int) -> None:
    """Remove every System V shared memory segment, message queue and semaphore set of ``uid``
    (``ipc_objects``) as root: a segment still attached goes once its last process is gone
    (``kill_uid`` comes first)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for kind, number in ipc_objects(uid):
        if kind == "shm":
            libc.shmctl(ctypes.c_int(number), ctypes.c_int(IPC_RMID), None)
        elif kind == "msg":
            libc.msgctl(ctypes.c_int(number), ctypes.c_int(IPC_RMID), None)
        else:
            libc.semctl(ctypes.c_int(number), ctypes.c_int(0), ctypes.c_int(IPC_RMID))


MQUEUE = "/dev/mqueue"


def remove_queues(uid: int) -> None:
    """Remove the POSIX message queues of ``uid`` (owned by it): in /dev/mqueue where the machine
    mounts it (Docker does), else in a mount of this IPC namespace's queues made for the purpose
    in a mount namespace of a helper's own (where the grader may mount: root outside a container).
    Where neither is possible the queues cannot be listed, nor (by the uid mode's children, whose
    Landlock rules leave /dev/mqueue out) opened by name from a later child's files."""
    if _is_mqueue(MQUEUE):
        remove_owned(uid, (MQUEUE,))
        return
    helper = os.fork()
    if helper == 0:  # pragma: no cover (the helper's own process)
        code = 1
        try:
            code = _remove_queues_in_a_mount(uid)
        finally:
            os._exit(code)
    os.waitpid(helper, 0)


def _is_mqueue(folder: str) -> bool:
    return _fs_type(folder) == 0x19800202  # MQUEUE_MAGIC


def _fs_type(folder: str) -> int:
    import ctypes

    buffer = ctypes.create_string_buffer(256)  # struct statfs; f_type comes first
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.statfs(folder.encode(), buffer) != 0:
        return -1
    return int.from_bytes(buffer.raw[:8], sys.byteorder)  # f_type: a long


def _remove_queues_in_a_mount(uid: int) -> int:  # pragma: no cover (runs in the helper of remove_queues)
    """In a new mount namespace (this helper's only), mount the queues of this IPC namespace over
    /tmp (hidden there for this helper alone) and remove those of ``uid``; 0 if it could."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
        return 1
    if libc.mount(None, b"/", None, ctypes.c_ulong(16384 | (1 << 18)), None) != 0:  # MS_REC | MS_PRIVATE
        return 1
    if libc.mount(b"mqueue", b"/tmp", b"mqueue", ctypes.c_ulong(2 | 4 | 8), None) != 0:  # nosuid, nodev, noexec
        return 1
    remove_owned(uid, ("/tmp",))
    return 0


def processes(uid: int) -> Iterator[tuple[int, str]]:
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
    for pid, folder in processes(uid):
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
    for pid, folder in processes(uid):
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
    for _, folder in processes(uid):
        try:
            count += len(os.listdir(f"{folder}/task"))
        except OSError:
            pass
    return count
