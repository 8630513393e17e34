"""Sandbox uids leased, never shared: a grader running as root runs children as uids that it alone
holds on this machine, so two graders (two TAs, a batch and the test suite) never signal, clean
up after or count the processes of each other's children.

A lease is an exclusive ``flock`` on ``FOLDER/<uid>.lock`` (a root-only folder), taken when a
grading session opens and held while the grader lives: the kernel releases it when the process
(and every worker it forked) ends, however it ends. A grader takes the first free uids from its
base (``$AUTOGRADER_SANDBOX_UID``, 64000 by default), skipping any that belong to an account (but the
platforms' own ``SANDBOX_USERS``) and any another grader holds; on taking one, it kills what a
dead grader left of it (``cleanup.sweep``). Nothing here signals a uid this process does not hold.
While the folder graders of a version before leased in (``OLD_FOLDER``) is there, a uid is leased
there too: graders of both versions on one machine never share one.

Containers: the lock folder is the container's own unless the host's is mounted there, and a
rootful engine shares uids (and their process counts) with the host, so each container picks a
base of its own (``docs/CONTAINER.md``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path

from autograder import environment
from autograder.errors import UsageError
from autograder.sandbox import cleanup, uid_map

#: Where the leases live (one lock file per uid); ``$AUTOGRADER_UID_LEASES`` moves it.
#: The engine's, whatever lab it grades.
DEFAULT_FOLDER = Path("/run/autograder-sandbox-uids")
FOLDER = Path(environment.get("UID_LEASES") or DEFAULT_FOLDER)
#: Where graders of a version before leased: while it is there (one may be running), a uid leased in
#: the default folder is leased there too, so graders of both versions on one machine never share one.
OLD_FOLDER = Path("/run/lab05-sandbox-uids")
SPAN = 4096  # uids tried from the base
SANDBOX_USER = "autograder-student"  # the account the platforms' setup.sh creates
#: The accounts whose uids a lease may take: setup.sh's, and the one a setup.sh of a version before it
#: made (a machine set up then, e.g. by ``try``, keeps that account).
SANDBOX_USERS = (SANDBOX_USER, "lab05-student")

_held: dict[int, int] = {}  # uid -> the descriptor holding its lock (this process and its forks)
_held_old: dict[int, int] = {}  # uid -> the descriptor holding its lock in OLD_FOLDER, where it was taken


class LeaseError(UsageError, RuntimeError):
    """No uid could be leased; the message says why and what to do."""


def _account(uid: int) -> str | None:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def _folder(folder: Path) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != 0 or info.st_mode & 0o022:
        raise LeaseError(f"{folder} must be root's and writable by root only, to hold the sandbox uids' leases")
    return folder


def _take(folder: Path, uid: int, held: dict[int, int] = _held) -> bool:
    """Lock ``uid`` for this process (True), unless another grader holds it."""
    fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False
    held[uid] = fd
    return True


def _take_old(where: Path, uid: int) -> bool:
    """Lock ``uid`` in ``OLD_FOLDER`` too when leasing in the default folder and an older grader's
    folder is there, root's alone (True: taken, or nothing to take); False when an older grader holds it."""
    if where != DEFAULT_FOLDER or not OLD_FOLDER.is_dir():
        return True
    info = OLD_FOLDER.stat()
    if info.st_uid != 0 or info.st_mode & 0o022:
        return True  # not a folder a grader made: no grader leases there
    return _take(OLD_FOLDER, uid, _held_old)


def _map_text() -> str:
    try:
        with open(uid_map.UID_MAP, encoding="ascii") as source:
            return source.read()
    except OSError:
        return f"0 0 {2**32 - 1}"  # no user namespaces here (not Linux): every uid is the host's


def _mapped() -> list[tuple[int, int]]:
    """The uids this process's user namespace maps (first, how many): a child can become no other."""
    return uid_map.blocks(_map_text())


def lease(count: int, base: int, folder: Path | None = None) -> tuple[int, ...]:
    """``count`` uids for this process's children, the first free ones from ``base``: held until it
    ends (uids it already holds count first). Each newly taken uid is swept: what a dead grader left
    running as it is killed, its files in the shared folders, its IPC objects and message queues
    removed (``cleanup.sweep``)."""
    if os.getuid() != 0:
        raise LeaseError("only root runs children as other uids")
    where = _folder(folder or FOLDER)
    mapped = _mapped()
    mine = [uid for uid in sorted(_held) if base <= uid < base + SPAN][:count]
    unmapped = 0
    for uid in range(base, base + SPAN):
        if len(mine) >= count:
            break
        if uid in _held or uid in (0, os.getuid()):
            continue
        if not any(first <= uid < first + size for first, size in mapped):
            unmapped += 1  # no child could become it: this user namespace (a rootless container) lacks it
            continue
        name = _account(uid)
        if name is not None and name not in SANDBOX_USERS:
            continue
        if _take(where, uid):
            if not _take_old(where, uid):
                release((uid,))
                continue
            cleanup.sweep(uid)
            mine.append(uid)
    if len(mine) < count and unmapped:
        raise LeaseError(
            f"{unmapped} of the sandbox uids from {base} to {base + SPAN - 1} are not mapped in this user namespace "
            f"({uid_map.UID_MAP}: {' '.join(_map_text().split())}), e.g. a rootless container's: give a first "
            "uid inside the mapped ones with --uid N (or $AUTOGRADER_SANDBOX_UID), or leave it to the image's "
            "entrypoint, which chooses mapped ones"
        )
    if len(mine) < count:
        raise LeaseError(
            f"only {len(mine)} of the {count} sandbox uids asked for are free from {base} to {base + SPAN - 1}: "
            f"other graders on this machine hold the rest ({where}). Wait for them, grade with fewer --jobs, "
            "or choose another range with --uid N (or $AUTOGRADER_SANDBOX_UID)"
        )
    return tuple(mine)


def held(uid: int) -> bool:
    """Does this process hold ``uid``'s lease?"""
    return uid in _held


def release(uids: Iterable[int]) -> None:
    """Give the leases of ``uids`` back (a grader that ends gives them all back anyway)."""
    for uid in uids:
        for held in (_held, _held_old):
            fd = held.pop(uid, None)
            if fd is not None:
                os.close(fd)
