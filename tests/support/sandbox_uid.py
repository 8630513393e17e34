"""Acting as a sandbox uid from a test: a forked helper that becomes the uid (as
``cleanup.kill_uid``'s helper does) makes what the test needs, whatever the seccomp filter lets a
child make."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable


def as_uid(uid: int, action: Callable[[], object], stay: bool = False) -> object:
    """Run ``action`` in a forked helper that has become ``uid`` (as ``cleanup.kill_uid``'s helper
    does) and return what it returned (JSON). ``stay``: the helper then lives on, detached in a
    session of its own (a process the sandbox uid left behind)."""
    read_end, write_end = os.pipe()
    helper = os.fork()
    if helper == 0:  # pragma: no cover - the helper's own process
        code = 0
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for standard in (0, 1, 2):
                os.dup2(null, standard)
            os.closerange(3, write_end)  # nothing of this process's (its leases' locks) goes on in it
            os.closerange(write_end + 1, 1 << 16)
            os.setsid()
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            if stay and os.fork():
                os._exit(0)  # the grandchild goes on, orphaned
            value = action()
            os.write(write_end, json.dumps(value).encode())
            os.close(write_end)
            if stay:
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                while True:
                    time.sleep(60)
        except BaseException as error:  # the parent reads what went wrong
            os.write(write_end, json.dumps({"error": repr(error)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answers:
        answer = answers.read()
    os.waitpid(helper, 0)
    value = json.loads(answer or b"null")
    assert not (isinstance(value, dict) and "error" in value), value
    return value
