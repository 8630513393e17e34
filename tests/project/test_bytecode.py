"""The grader's bytecode is kept in its private cache folder: compiled by the first run that imports
a module, read by every later one, even where PYTHONDONTWRITEBYTECODE is set."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from autograder import bytecode, paths

#: The modules imported before ``use`` runs (their bytecode is ``make bytecode``'s, beside them, or none).
EARLY = tuple(
    f"autograder/{name}.py" for name in ("__main__", "__init__", "bytecode", "cache", "environment", "errors")
)

USE_CASES = [
    # (id, the prefix the caller chose, does Python write no bytecode, is all kept as it was)
    ("no-bytecode-written", None, True, False),
    ("a-prefix-chosen", "/elsewhere/pycache", True, True),
    ("bytecode-written-beside-the-sources", None, False, True),
]


@pytest.mark.parametrize("chosen, unwritten, kept", [row[1:] for row in USE_CASES], ids=[row[0] for row in USE_CASES])
def test_use_points_python_at_the_cache_where_it_would_write_none(chosen, unwritten, kept, tmp_path, monkeypatch):
    """Does ``use`` make Python read and write bytecode under the cache's ``bytecode`` folder where
    it would write none, and leave a prefix the caller chose, or Python's own writing, as it is?"""
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "pycache_prefix", chosen)
    monkeypatch.setattr(sys, "dont_write_bytecode", unwritten)
    folder = bytecode.use()
    if kept:
        assert (folder, sys.pycache_prefix, sys.dont_write_bytecode) == (None, chosen, unwritten)
    else:
        assert folder == tmp_path / "cache" / bytecode.FOLDER
        assert (sys.pycache_prefix, sys.dont_write_bytecode) == (str(folder), False)


def _compiled(cache, flags=()):
    """The grader's modules a run of ``python -m autograder --help`` compiled from their source (but
    the ``EARLY`` ones)."""
    env = {**os.environ, "AUTOGRADER_CACHE": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    done = subprocess.run(
        [sys.executable, "-v", *flags, "-m", "autograder", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=paths.ROOT,
        check=True,
    )
    root = str(paths.PACKAGE)
    return [
        line
        for line in done.stderr.splitlines()
        if line.startswith(f"# code object from {root}") and not line.endswith(EARLY)
    ]


def test_a_second_run_compiles_nothing_of_the_grader(tmp_path):
    """Where PYTHONDONTWRITEBYTECODE is set, does the first run compile the grader's modules and
    write them into the cache (a folder only its owner may enter), and the second compile none?"""
    cache = tmp_path / "cache"
    assert _compiled(cache), "the first run found bytecode already: the check below could not fail"
    written = list((cache / bytecode.FOLDER).rglob("cli.*.pyc"))
    assert written, "no bytecode of autograder/cli.py in the cache"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert _compiled(cache) == []
