"""The grader's bytecode where Python would write none (PYTHONDONTWRITEBYTECODE is set, as in the
repository's Dockerfile): kept in the grader's private cache folder (``sys.pycache_prefix``), each
module it imports (its own, numpy's, ir_measures', yaml's...) compiled once, by the first run that
imports it, and read back by every later run. Compiling them afresh cost each run about 0.15 to
0.3 s of CPU. Where Python writes bytecode beside the sources, nothing changes.

The folder is the cache's (``cache.cache_dir``: its owner's alone, mode 0700), so no child, which
runs as another user with ``python -I -B`` (no bytecode written, no PYTHON* variable read), can
read or write it. A prefix the caller chose (``-X pycache_prefix``, ``PYTHONPYCACHEPREFIX``) is kept.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder import cache

#: The cache's subfolder holding the bytecode, a tree mirroring the source folders' paths.
FOLDER = "bytecode"


def use() -> Path | None:
    """Where Python writes no bytecode, read and write this process's under the cache folder from
    now on; the folder, or None where nothing changed (Python writes bytecode beside the sources,
    the caller chose a prefix, or the cache folder cannot be made)."""
    if not sys.dont_write_bytecode or sys.pycache_prefix is not None:
        return None
    try:
        folder = cache.cache_dir() / FOLDER
    except OSError:  # no cache folder here: Python compiles as it would have
        return None
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False  # written only there, never beside a source file
    return folder
