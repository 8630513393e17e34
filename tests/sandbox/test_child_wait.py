"""Waiting for a child to end (``sandbox/child_process.py: _until_ended``): a jail's launcher is
reaped the moment it ends, not a polling step later, and never waited for past the time given."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from autograder.sandbox.child_process import _until_ended


def test_does_the_wait_return_only_once_the_child_has_ended_so_it_is_reaped_at_once():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    _until_ended(process.pid, 60)
    pid, status = os.waitpid(process.pid, os.WNOHANG)  # 0 if it were still running
    process.returncode = os.waitstatus_to_exitcode(status)
    assert pid == process.pid
    assert process.returncode == 0


def test_does_the_wait_give_up_after_its_timeout_and_leave_the_child_running():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = time.monotonic()
        _until_ended(process.pid, 0.2)
        waited = time.monotonic() - started
        assert process.poll() is None
        assert 0.15 <= waited < 30
    finally:
        process.kill()
        process.wait()
