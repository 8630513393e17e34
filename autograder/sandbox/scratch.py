"""The uid mode's scratch space bounded as the jail's /scratch is (``Limits.tmp_mb`` bytes,
``Limits.tmp_inodes`` files and folders), with no mount: a grader in a container has no
CAP_SYS_ADMIN, so no tmpfs of its own.

The work folder is root's, writable by the sandbox uid as its group (mode 1770), so the child may
make files and folders in it but not change who may. The parent watches it with inotify (every
change wakes ``ChildProcess.messages``, before it reads what the child sent since, so a child that
filled it is refused before its next call; and it looks again every ``TICK`` seconds for what
inotify cannot see: files deleted while still open) and measures it whole: its files' blocks (as tmpfs
counts them), the files the uid holds open but has deleted, and the number of entries. The moment a
bound is reached the scratch is full, as a full tmpfs is: every folder in it becomes root's and
read-only to the uid (top down, so none is missed: a folder can only be made in one still writable)
and the uid's processes get a file size limit of 0 (``RLIMIT_FSIZE``, set by a helper that becomes
the uid: root may not set another user's limits without CAP_SYS_RESOURCE), so that every new file,
folder or byte is refused (``PermissionError``, ``File too large``) and the code goes on, as in the
jail, where the kernel answers ``No space left on device``. The harness measures the folder when an
error is raised and adds why to its message; ``FULL``, a note in the folder, tells it why where it
cannot see it itself (files deleted while open); the instructor's output says so too.
``cleanup.sweep`` empties the folder after the child; the next child's ``Watch`` opens it again.
"""

from __future__ import annotations

import ctypes
import os
import resource
import shutil
import stat
import time
from pathlib import Path

from autograder.sandbox import cleanup

TICK = 0.1  # seconds between looks when nothing changed
#: seconds between looks once the scratch is full: nothing can be added to it then (every folder is
#: root's, every file size limit 0), so only what no refusal stops is looked for, and measuring a full
#: scratch (4,096 entries: 15 ms) at every TICK cost its grading the parent's CPU a tenth of the time
FULL_TICK = 1.0
#: past its bound by this share of it, the scratch was filled by what no refusal stops (writes
#: through mmap into a file made large and sparse): the child is killed, as a full tmpfs's SIGBUS
#: ends it in the jail (``Watch.overflow``)
OVERFLOW = 0.25
FULL = ".scratch-full"  # root's file in the full scratch: why it is full (read by the harness)
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000
#: what wakes the parent: a file written, made, moved in or out, deleted, a folder made (a link is
#: never followed, only folders are watched)
_EVENTS = 0x2 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x01000000 | 0x02000000
_libc = ctypes.CDLL(None, use_errno=True)


def full_message(holds: str) -> str:
    """Why the scratch is full (``holds``: the bound reached), in its note for the child (``FULL``)
    and the instructor's output; the harness words its own finding the same (``scratch_full``)."""
    return (
        f"the scratch space is full: it holds at most {holds}, all a submission may write; "
        "write less, and remove temporary files once they are read"
    )


class Watch:
    """The bounds of one child's work folder (``folder``), for ``uid``."""

    def __init__(self, folder: Path, uid: int, max_bytes: int, max_entries: int):
        self.folder, self.uid, self.max_bytes, self.max_entries = folder, uid, max_bytes, max_entries
        self.full: str | None = None  # why it is full, once it is
        self.overflow = False  # past the bound by more than OVERFLOW: the child is to be killed
        self.found = ""  # what it held when last measured
        self.watched: set[tuple[int, int]] = set()
        self.due = 0.0
        #: something may have changed since the last measure: inotify woke it, or it cannot be told
        #: (no inotify, or a folder it could not watch); a ``final`` look measures only then
        self.changed = True
        self.blind = False  # a folder in it is not watched (the machine's watches ran out)
        #: a wake measures no sooner than this: after a measure, as long again as it took (a flood of
        #: files wakes it at every one, and measuring 4,096 entries takes 15-30 ms)
        self.rested = 0.0
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o1770)  # the uid's to fill, not to hand out (sticky: its own files only)
        # -1 where the machine gives no more inotify instances: then it looks every TICK only
        self.fd: int = _libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        self._watch(str(folder))

    def fileno(self) -> int:
        """The inotify descriptor that wakes the parent (-1: none, it looks every ``TICK``)."""
        return self.fd

    def _watch(self, folder: str) -> None:
        try:
            info = os.lstat(folder)
        except OSError:
            return
        key = (info.st_dev, info.st_ino)
        if self.fd < 0 or key in self.watched:
            return
        if _libc.inotify_add_watch(self.fd, folder.encode(), _EVENTS) >= 0:
            self.watched.add(key)
        else:
            self.blind = True

    def check(self, now: float | None = None, final: bool = False) -> str | None:
        """Read what changed and measure the folder; returns why it is full if it has just become
        full (None otherwise). Looks at most once per ``TICK`` unless inotify woke it or this is a
        ``final`` look: the one taken when an answer arrives, before it is read, so that what was
        made between two looks (once the scratch is full, a change wakes it but is measured only
        then) still stops a child that answers at once (the folder only: files deleted while open are
        looked for every ``TICK``). A ``final`` look measures only when something may have changed
        since the last measure (``changed``): a file's count is the larger of its blocks and its
        size, which only a change that wakes inotify can grow (writes through mmap fill blocks up to
        a size counted already), so a folder of 4,096 files left by a flood is not measured again
        at every answer (15-30 ms each: most of its grading time, which then depended on load); and
        a wake measures only once as long as the last measure took has gone by since it (``rested``:
        at most half the parent's time measuring a flood), the ``TICK`` and the ``final`` looks
        unchanged, so a child that filled it is still refused before its next call."""
        woken = False
        while self.fd >= 0:
            try:
                woken = bool(os.read(self.fd, 1 << 16)) or woken
            except (BlockingIOError, OSError):
                break
        now = time.monotonic() if now is None else now
        self.changed = self.changed or woken or self.fd < 0 or self.blind
        ticked = now >= self.due
        looked = ticked or (final and self.changed)
        woken = woken and now >= self.rested
        if self.overflow or not (woken or looked) or (self.full is not None and not looked):
            return None
        if ticked:
            self.due = now + (TICK if self.full is None else FULL_TICK)
        self.changed = False  # what changes while it measures wakes the next check
        began = time.monotonic()
        used, entries = self.measure(deleted=ticked)
        self.rested = now + 2 * (time.monotonic() - began)
        self.found = f"{entries} files and folders, {used / (1 << 20):.1f} MiB"
        self.overflow = used > self.max_bytes * (1 + OVERFLOW)
        if self.full is not None:  # measured still: bytes written through mmap meet no refusal
            return None
        if entries >= self.max_entries:
            self.refuse(f"{self.max_entries} files and folders")
        elif used >= self.max_bytes:
            self.refuse(f"{self.max_bytes >> 20} MiB")
        if self.full is not None:
            self.due = now + FULL_TICK
        return self.full

    def measure(self, deleted: bool = True) -> tuple[int, int]:
        """Bytes and entries of the folder, and (``deleted``) bytes of the files the uid holds open
        but has deleted; watches each folder found. A file counts as the larger of its blocks and
        its size (``_bytes``). (What is deleted makes no inotify event, and finding it reads /proc:
        it is looked for every ``TICK``, the folder at every change.)"""
        used, entries = 0, 0
        folders = [str(self.folder)]
        while folders:
            folder = folders.pop()
            self._watch(folder)
            try:
                found = list(os.scandir(folder))
            except OSError:
                continue
            for entry in found:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_uid == 0 and entry.name == FULL:
                    continue
                entries += 1
                used += _bytes(info)
                if stat.S_ISDIR(info.st_mode):
                    folders.append(entry.path)
        return used + (self._deleted() if deleted else 0), entries

    def _deleted(self) -> int:
        """Blocks of the regular files the uid's processes hold open that no folder names any more."""
        device = os.lstat(self.folder).st_dev
        used = 0
        for pid, _ in cleanup.processes(self.uid):
            try:
                descriptors = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for descriptor in descriptors:
                try:
                    info = os.stat(f"/proc/{pid}/fd/{descriptor}")
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and info.st_dev == device:
                    used += _bytes(info)
        return used

    def refuse(self, holds: str) -> None:
        """The scratch is full: no new file, folder or byte for the uid (see the module's text).
        Its note comes first, so that every refusal the child meets finds it. Nothing the uid may
        have named is followed: the note replaces whatever had its name, and each folder is changed
        through a descriptor opened without following a link, once its parent is closed (so no
        entry can be swapped for a link meanwhile)."""
        self.full = full_message(holds)
        self._note(self.full + "\n")
        folders = [str(self.folder)]
        while folders:  # top down: a folder is closed before it is listed, so none made meanwhile escapes
            folder = folders.pop()
            try:
                descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                os.fchown(descriptor, 0, self.uid)
                os.fchmod(descriptor, 0o1750)
                found = [entry.name for entry in os.scandir(descriptor) if entry.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            finally:
                os.close(descriptor)
            folders += [os.path.join(folder, name) for name in found]
        _no_more_bytes(self.uid)

    def _note(self, text: str) -> None:
        """Write ``FULL`` as root's own file (whatever the uid put under its name is removed first)."""
        path = self.folder / FULL
        for _ in range(3):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except IsADirectoryError:
                shutil.rmtree(path, ignore_errors=True)
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            except FileExistsError:
                continue  # made again meanwhile: once more
            with os.fdopen(descriptor, "w", encoding="utf-8") as note:
                note.write(text)
            return

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _bytes(info: os.stat_result) -> int:
    """What a file holds, as a bound must count it: its blocks (as tmpfs counts them) or, if
    larger, its size, so that a sparse file counts when it is made (writes through mmap into it
    make no inotify event and meet no file size limit)."""
    return max(info.st_blocks * 512, info.st_size if stat.S_ISREG(info.st_mode) else 0)


def _no_more_bytes(uid: int) -> None:
    """Set every process of ``uid`` a file size limit of 0, from a helper that becomes ``uid``."""
    helper = os.fork()
    if helper == 0:  # pragma: no cover (the helper's own process)
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for pid, _ in cleanup.processes(uid):
                try:
                    resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, 0))
                except OSError:
                    pass
        finally:
            os._exit(0)
    os.waitpid(helper, 0)
