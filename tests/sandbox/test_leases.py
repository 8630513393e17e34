"""Sandbox uids leased beside graders of a version before: while the folder they leased in
(``leases.OLD_FOLDER``) is there, a uid one of them holds is never leased, so two graders of two
versions on one machine never share a sandbox uid."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from autograder.sandbox import leases

#: A range no account and no other grader uses (the suite's graders lease from 64000 and 100000 up).
BASE = 3_700_000 + 16 * (os.getpid() % 4096)

# id -> (the older grader's folder is there, it holds BASE's lease, the offset from BASE leased)
CASES = {
    "an-older-grader-holds-the-first-uid": (True, True, 1),
    "the-older-folder-with-no-lease-held": (True, False, 0),
    "no-older-folder": (False, False, 0),
}


@pytest.mark.parametrize("folder_there, held, offset", CASES.values(), ids=CASES.keys())
def test_a_uid_an_older_grader_holds_is_not_leased(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, folder_there: bool, held: bool, offset: int
) -> None:
    """Does a grader lease the first uid no grader of either version holds, and give both leases back?"""
    if os.geteuid() != 0:
        pytest.fail("leasing sandbox uids needs root (the suite runs as root)", pytrace=False)
    new, old = tmp_path / "new", tmp_path / "old"
    monkeypatch.setattr(leases, "DEFAULT_FOLDER", new)
    monkeypatch.setattr(leases, "OLD_FOLDER", old)
    if folder_there:
        old.mkdir(mode=0o700)
    holder = None
    if held:  # an older grader's lease: its own open file, locked
        holder = os.open(old / f"{BASE}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        taken = leases.lease(1, BASE, folder=new)
        try:
            assert taken == (BASE + offset,)
            assert (old / f"{BASE + offset}.lock").exists() == folder_there
        finally:
            leases.release(taken)
        assert not leases.held(BASE + offset)
        if folder_there:  # given back there too: an older grader could take it now
            probe = os.open(old / f"{BASE + offset}.lock", os.O_RDWR)
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(probe)
    finally:
        if holder is not None:
            os.close(holder)
