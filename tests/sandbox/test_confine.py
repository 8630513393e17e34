"""The kernel's confinements every child installs (``sandbox/child/confine.py``), tried in a process
of their own: the seccomp filter the grader builds with libseccomp, and Landlock."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from autograder import paths
from autograder.sandbox import seccomp
from autograder.sandbox.child import confine

CHILD = paths.PACKAGE / "sandbox" / "child"

TRY = r"""
import base64, json, os, signal, socket, subprocess, sys, threading
sys.path.insert(0, sys.argv[1])
import confine
confine.no_new_privs()
setup = json.loads(sys.argv[2])
if setup.get("landlock"):
    confine.landlock(setup["landlock"]["read"], setup["landlock"]["write"])
if setup.get("seccomp"):
    confine.seccomp(base64.b64decode(setup["seccomp"]))
found = {}
for family in ("AF_INET", "AF_INET6", "AF_UNIX"):
    try:
        socket.socket(getattr(socket, family)).close()
        found[family] = "allowed"
    except OSError as error:
        found[family] = error.errno
try:
    socket.socketpair()[0].close()
    found["socketpair"] = "allowed"
except OSError as error:
    found["socketpair"] = error.errno
found["thread"] = "allowed"
threading.Thread(target=lambda: None).start()
run = lambda: subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True).stdout.decode().strip()
for name, start in (
    ("subprocess", run),
    ("fork", lambda: "allowed" if os.fork() else os._exit(0)),
    ("nice", lambda: os.nice(1) and "allowed"),
    ("sigterm", lambda: (signal.signal(15, signal.SIG_IGN), os.kill(os.getpid(), 15), "allowed")[2]),
    ("sigusr1", lambda: signal.signal(10, lambda *_: None) and os.kill(os.getpid(), 10) or "allowed"),
):
    try:
        found[name] = start()
    except OSError as error:
        found[name] = error.errno
for path in setup.get("probe", []):
    try:
        open(path, "rb").close()
        found[path] = "read"
    except OSError as error:
        found[path] = error.errno
print(json.dumps(found))
"""


def _try(setup: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", TRY, str(CHILD), json.dumps(setup)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-500:]
    return json.loads(done.stdout)


def test_seccomp_filter_refuses_every_socket_and_every_new_process():
    """With the grader's filter, is every socket refused (EACCES), and a socketpair, every new process
    and a lower priority (EPERM), while threads and signals to itself still work?"""
    found = _try({"seccomp": base64.b64encode(seccomp.child_filter()).decode()})
    assert found["AF_INET"] == found["AF_INET6"] == found["AF_UNIX"] == 13
    assert found["socketpair"] == found["subprocess"] == found["fork"] == found["nice"] == found["sigterm"] == 1
    assert found["thread"] == found["sigusr1"] == "allowed"


def test_without_the_filter_sockets_and_processes_open():
    """Does the same probe see sockets, processes and priorities allowed without the filter (so the
    test above can fail)?"""
    found = _try({})
    assert found["AF_INET"] == "allowed" and found["subprocess"] == "1" and found["fork"] == "allowed"
    assert found["socketpair"] == found["nice"] == found["sigterm"] == "allowed"


@pytest.mark.skipif(confine.landlock_abi() < 1, reason="this kernel has no Landlock")
def test_landlock_allows_only_what_it_lists(tmp_path):
    """With Landlock, can the child read the listed paths (Python, its folder) and nothing else?"""
    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    (mine / "a").write_text("a")
    (other / "b").write_text("b")
    python = sorted({sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/bin", str(CHILD)})
    found = _try(
        {
            "landlock": {"read": [*python, str(mine)], "write": []},
            "probe": [str(mine / "a"), str(other / "b"), "/proc/1/cmdline", str(paths.RUBRIC)],
        }
    )
    assert found[str(mine / "a")] == "read"
    assert found[str(other / "b")] == found["/proc/1/cmdline"] == found[str(paths.RUBRIC)] == 13
