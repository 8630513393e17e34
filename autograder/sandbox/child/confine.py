"""Confining the child further with the kernel's own means (standard library only; ctypes).

- ``seccomp(bpf)``: installs the seccomp filter the parent built (``sandbox/seccomp.py``, with
  libseccomp) as raw BPF, on every thread: an allow-list of the calls Python needs to compute (no
  IPC, socket, new process or namespace, io_uring, ptrace). Needs ``no_new_privs`` (set first).
- ``landlock(read, write)``: where the kernel has Landlock (Linux 5.13+, unprivileged, allowed in
  containers), the child may then read only ``read`` (Python, its libraries, its own submission)
  and write only ``write`` (its scratch): not the class folder, not the output folder, not the
  grader, not /proc (so not the grader's command line either). From Landlock ABI 4 no TCP either,
  from ABI 6 no signal and no abstract socket outside the sandbox.
"""

import ctypes
import os
import platform

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from typing import NoReturn

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
SYS_LANDLOCK = (444, 445, 446)  # create_ruleset, add_rule, restrict_self (the same on every architecture)

# Landlock's filesystem rights (ABI 1), then REFER (2), TRUNCATE (3), IOCTL_DEV (5)
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 16, 32, 64, 128, 256
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 512, 1024, 2048, 4096
REFER, TRUNCATE, IOCTL_DEV = 8192, 16384, 32768
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
READ = EXECUTE | READ_FILE | READ_DIR
WRITE = READ | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SYM | TRUNCATE

_libc = ctypes.CDLL(None, use_errno=True)


class _Filter(ctypes.Structure):  # struct sock_filter (8 bytes)
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):  # struct sock_fprog: the length, padding, a pointer (ctypes pads it)
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


class _Ruleset(ctypes.Structure):  # struct landlock_ruleset_attr (its size tells the kernel the ABI used)
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):  # struct landlock_path_beneath_attr, packed (12 bytes)
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class ConfineError(OSError):
    """The kernel refused a step (the parent decides whether that is fatal)."""


def _fail(what: str) -> "NoReturn":
    errno = ctypes.get_errno()
    raise ConfineError(errno, f"{what}: {os.strerror(errno)}")


def no_new_privs() -> None:
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)):
        _fail("prctl(no_new_privs)")


def seccomp(bpf: bytes) -> None:
    """Install ``bpf`` (an array of ``struct sock_filter``) on every thread of this process."""
    if len(bpf) % 8 or not 0 < len(bpf) // 8 <= 4096:
        raise ConfineError(22, "the seccomp filter is not an array of BPF instructions")
    count = len(bpf) // 8
    instructions = (_Filter * count).from_buffer_copy(bpf)
    program = _Program(count, ctypes.cast(instructions, ctypes.POINTER(_Filter)))
    number = SYS_SECCOMP.get(platform.machine())
    if number is None:
        raise ConfineError(95, f"seccomp: no syscall number for {platform.machine()}")
    if _libc.syscall(
        ctypes.c_long(number),
        ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
        ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(program),
    ):
        _fail("seccomp")


def landlock_abi() -> int:
    """The Landlock ABI this kernel offers (0: none)."""
    version: int = _libc.syscall(ctypes.c_long(SYS_LANDLOCK[0]), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(version, 0)


def landlock(read: list[str], write: list[str]) -> int:
    """Allow reading only below ``read`` and writing only below ``write``; returns the ABI used
    (0 when the kernel has no Landlock: nothing is restricted, the caller decides)."""
    abi = landlock_abi()
    if abi < 1:
        return 0
    fs = READ | WRITE | MAKE_CHAR | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK
    fs |= REFER if abi >= 2 else 0
    fs &= ~TRUNCATE if abi < 3 else ~0
    fs |= IOCTL_DEV if abi >= 5 else 0
    attr = _Ruleset(
        fs,
        NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0,
    )
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _libc.syscall(
        ctypes.c_long(SYS_LANDLOCK[0]), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        _fail("landlock_create_ruleset")
    try:
        for paths, access in ((read, READ), (write, WRITE & fs)):
            for path in paths:
                _allow(ruleset, path, access)
        if _libc.syscall(ctypes.c_long(SYS_LANDLOCK[2]), ctypes.c_int(ruleset), ctypes.c_uint32(0)):
            _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _allow(ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this system does not have
    try:
        if not os.path.isdir(path):  # a file may only get the rights that apply to files
            access &= EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
        rule = _PathBeneath(access, fd)
        if _libc.syscall(
            ctypes.c_long(SYS_LANDLOCK[1]),
            ctypes.c_int(ruleset),
            ctypes.c_int(1),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        ):
            _fail(f"landlock_add_rule {path}")
    finally:
        os.close(fd)
