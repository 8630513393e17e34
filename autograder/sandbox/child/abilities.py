"""What the kernel lets a child of this grader do (standard library only; run as a script by
``autograder.sandbox.machine`` with the child interpreter, never imported by the grader).

Each attempt runs in a fresh forked process, so one success does not change the next attempt:

- ``unshare`` of a user namespace alone, and of the jail's namespaces (mount, PID, network,
  IPC, UTS; with a user namespace when not root): 0 or the errno the kernel answered;
- installing a seccomp filter (an allow-all one, after ``no_new_privs``): 0 or the errno.

It also reports this process's seccomp mode, whether libseccomp and its Python binding are
there, and the interpreter's version. Prints one JSON object.
"""

import ctypes
import ctypes.util
import importlib.util
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import confine
import jail

sys.path.pop(0)

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from collections.abc import Callable

PR_GET_SECCOMP, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 21, 22, 2
BPF_RET_K, SECCOMP_RET_ALLOW = 0x06, 0x7FFF0000
JAIL_FLAGS = jail.CLONE_NEWNS | jail.CLONE_NEWPID | jail.CLONE_NEWNET | jail.CLONE_NEWIPC | jail.CLONE_NEWUTS

_libc = ctypes.CDLL(None, use_errno=True)


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def _in_a_fork(attempt: "Callable[[], int]") -> int:
    """Run ``attempt`` (returning 0 or an errno) in a forked process; its answer."""
    pid = os.fork()
    if pid == 0:
        try:
            code = attempt()
        except BaseException:
            code = 255
        os._exit(min(max(code, 0), 255))
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 255


def _unshare(flags: int) -> "Callable[[], int]":
    return lambda: 0 if _libc.unshare(flags) == 0 else ctypes.get_errno()


def _install_filter() -> int:
    """An allow-all filter, installed as every child installs the real one (``confine.seccomp``)."""
    try:
        confine.no_new_privs()
        confine.seccomp(bytes(_Instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW)))
    except confine.ConfineError as error:
        return error.errno or 255
    return 0


def _seccomp_mode() -> int:
    """This process's seccomp mode (0 none, 2 filtered); -1 when the kernel has no seccomp."""
    mode = _libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0)
    return mode if mode >= 0 else -1


def main() -> None:
    root = os.getuid() == 0
    found = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "user_namespace": _in_a_fork(_unshare(jail.CLONE_NEWUSER)),
        "jail_namespaces": _in_a_fork(_unshare(JAIL_FLAGS | (0 if root else jail.CLONE_NEWUSER))),
        "seccomp_mode": _seccomp_mode(),
        "seccomp_filter": _in_a_fork(_install_filter),
        "libseccomp": ctypes.util.find_library("seccomp") or "",
        "seccomp_binding": importlib.util.find_spec("seccomp") is not None,
    }
    print(json.dumps(found))


if __name__ == "__main__":
    main()
