"""Sweeping up after a sandbox uid (the uid mode, where no namespace ends everything at once):
the files it may read, the processes it left, the files it left in the shared temporary folders."""

from __future__ import annotations

import os
import shutil
import signal
import time
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


def kill_uid(uid: int) -> None:
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


def count_tasks(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid:
                    count += len(os.listdir(f"{entry.path}/task"))
            except OSError:
                pass
    return count
