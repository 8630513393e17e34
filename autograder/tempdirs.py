"""The grader's temporary folders, all below one private folder per grading run,
``$TMPDIR/autograder-<pid>`` (its owner may write, anyone may pass through to a folder whose name
they know, nobody else may list it). A grader killed mid-batch cannot remove what it was grading;
the next one does: it removes the folders of runs whose process is gone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "autograder-"  # no lab's name: the engine grades any lab
_root: Path | None = None


def root() -> Path:
    """This run's private folder (created on first use, removed at exit; forked workers share it)."""
    global _root
    if _root is None or not _root.is_dir():
        base = Path(tempfile.gettempdir())
        _sweep(base)
        _root = base / f"{PREFIX}{os.getpid()}"
        _root.mkdir(mode=0o711, exist_ok=True)
        os.chmod(_root, 0o711)
        atexit.register(_remove, _root, os.getpid())
    return _root


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # not in a forked worker: the run's own process
        shutil.rmtree(folder, ignore_errors=True)


def _sweep(base: Path) -> None:
    """Remove the folders of grading runs that are no longer running (killed, crashed)."""
    for folder in base.glob(f"{PREFIX}*"):
        pid = folder.name.removeprefix(PREFIX)
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass  # a process of another user: alive


def folder(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder of this run (``with tempdirs.folder("child-") as path``)."""
    return tempfile.TemporaryDirectory(prefix=prefix, dir=root())
