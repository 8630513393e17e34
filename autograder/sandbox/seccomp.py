"""The seccomp filter every child installs before student code runs, built here (the trusted parent)
with libseccomp, through its Python binding, and handed to the child as raw BPF (the child installs
it with the standard library alone: ``sandbox/child/confine.py``), the same in the jail and the uid
mode.

It is an allow-list: ``ALLOWED`` names the system calls a Python interpreter computing metrics needs
after the harness has enclosed itself (importing the standard library and numpy, numpy's and
OpenBLAS's threads, reading files, writing the run file in its scratch, the harness's own pipes,
time, random, sqlite3 in memory, the resource limits the harness sets on itself), each with why, and
for some only with the arguments listed. Every other call fails with ``EPERM`` (``REFUSED_WITH``
names the two exceptions), never kills the process: the submission gets an ``OSError`` its feedback
can show. Outside the list, among others: every kind of IPC (System V shared memory, message queues
and semaphores, POSIX message queues), namespaces, sockets of every family, new processes (fork,
vfork, a clone that is not a thread: processes of its own could busy the CPUs unseen by the time
budget, which charges the CPU time of the child's own threads), ptrace and the reading or writing of
another process's memory, mounts, BPF programs, perf events, io_uring, keyrings, kernel modules, a
lower priority or another scheduling policy (that would make the child wait for a CPU, which the
budget does not charge), and the signals that end a process from outside (SIGKILL, SIGTERM, SIGINT,
SIGHUP, SIGQUIT: so when one ends a child, someone else sent it, and the call is not the
submission's fault).

Architectures name calls differently (x86_64 has ``open``, aarch64 only ``openat``): a name this
machine's architecture lacks is left out of its filter (``allowed_here`` lists what is in it).
"""

from __future__ import annotations

import errno
import functools
import importlib.util
import os
import platform
import sys
import tempfile
from types import ModuleType
from typing import NamedTuple

from autograder import cache
from autograder.errors import UsageError

#: The signals only someone outside the sandbox may send (``sandbox/runner.py: OUTSIDE_SIGNALS``).
OUTSIDE_SIGNALS = (1, 2, 3, 9, 15)  # SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM
#: The signals a child may send (to itself: other processes are another uid, or outside its PID
#: namespace): 0 (does it exist?) to the last real-time signal, but those from outside.
CHILD_SIGNALS = tuple(number for number in range(65) if number not in OUTSIDE_SIGNALS)
CLONE_THREAD = 0x00010000
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
#: A clone is allowed when these flags of it are CLONE_THREAD alone: a thread, in no new namespace.
CLONE_MASK = CLONE_THREAD | sum(NAMESPACE_FLAGS)
INT_MASK = 0xFFFF_FFFF  # an ``int`` argument: the kernel reads its low 32 bits only
PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_SET_NAME, PR_GET_NAME = 1, 2, 15, 16
TCGETS, TIOCGWINSZ, FIONBIO, FIONCLEX, FIOCLEX = 0x5401, 0x5413, 0x5421, 0x5450, 0x5451
F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK, F_SETLKW = range(8)
F_DUPFD_CLOEXEC = 1030


class Allowed(NamedTuple):
    """Why a call is allowed and, for some, with which arguments only: the call is allowed when its
    argument ``argument`` (0 the first), masked by ``mask``, is one of ``values``."""

    why: str
    argument: int | None = None
    values: tuple[int, ...] = ()
    mask: int = INT_MASK


#: Every call a child may make once it has enclosed itself; all others fail (``REFUSED_WITH``, else EPERM).
ALLOWED: dict[str, Allowed] = {
    # memory
    "brk": Allowed("the C allocator grows the heap"),
    "mmap": Allowed("the allocator's large blocks, thread stacks and the shared libraries numpy loads"),
    "munmap": Allowed("freeing what mmap mapped"),
    "mremap": Allowed("growing a large block (a list, a numpy array) in place"),
    "mprotect": Allowed("loading a shared library (its segments), guard pages of thread stacks"),
    "madvise": Allowed("the allocator and glibc return freed memory (a thread's stack at its end)"),
    "mbind": Allowed("OpenBLAS places its buffers (its own memory only)"),
    "msync": Allowed("numpy.memmap's flush of a file in the scratch"),
    # files: the kernel's permissions and, in the uid mode, Landlock decide which
    "read": Allowed("reading files, modules and the harness's inbox"),
    "write": Allowed("writing the run file, printing, the harness's channel"),
    "readv": Allowed("buffered reads of several blocks"),
    "writev": Allowed("buffered writes of several blocks"),
    "pread64": Allowed("reading at an offset (zipimport, sqlite3)"),
    "pwrite64": Allowed("writing at an offset (sqlite3)"),
    "lseek": Allowed("the io module's tell and seek (every open)"),
    "open": Allowed("opening a file (x86_64; aarch64 has openat only)"),
    "openat": Allowed("opening a file: modules, data, the run file"),
    "close": Allowed("closing a file"),
    "stat": Allowed("os.stat (x86_64)"),
    "lstat": Allowed("os.lstat (x86_64)"),
    "fstat": Allowed("the io module sizes an open file"),
    "newfstatat": Allowed("the import system's stat of every path it tries"),
    "statx": Allowed("os.stat where glibc asks statx"),
    "access": Allowed("os.access (x86_64)"),
    "faccessat": Allowed("os.access"),
    "faccessat2": Allowed("os.access where glibc asks faccessat2"),
    "readlink": Allowed("os.path.realpath (x86_64)"),
    "readlinkat": Allowed("os.path.realpath"),
    "getdents64": Allowed("os.listdir, os.scandir, the import system's directory listings"),
    "getcwd": Allowed("os.getcwd, relative paths"),
    "chdir": Allowed("os.chdir into the scratch"),
    "fchdir": Allowed("os.chdir by descriptor"),
    "mkdir": Allowed("os.mkdir, tempfile.mkdtemp in the scratch (x86_64)"),
    "mkdirat": Allowed("os.mkdir, tempfile.mkdtemp in the scratch"),
    "rmdir": Allowed("removing a folder of the scratch (x86_64)"),
    "unlink": Allowed("removing a file of the scratch (x86_64)"),
    "unlinkat": Allowed("removing a file or folder (shutil.rmtree, TemporaryDirectory)"),
    "rename": Allowed("os.replace of the run file (x86_64)"),
    "renameat": Allowed("os.replace of the run file"),
    "renameat2": Allowed("os.replace of the run file where glibc asks renameat2"),
    "truncate": Allowed("os.truncate of a file"),
    "ftruncate": Allowed("a file object's truncate"),
    "fsync": Allowed("os.fsync before replacing a file"),
    "fdatasync": Allowed("os.fdatasync"),
    "chmod": Allowed("os.chmod, shutil.copy (x86_64)"),
    "fchmod": Allowed("os.chmod of an open file"),
    "fchmodat": Allowed("os.chmod, shutil.copy"),
    "utimensat": Allowed("os.utime, shutil.copy2"),
    "listxattr": Allowed("shutil.copy2 lists a file's extended attributes (EPERM would stop it)"),
    "llistxattr": Allowed("shutil.copy2 of a link's extended attributes"),
    "flistxattr": Allowed("os.listxattr of an open file"),
    "getxattr": Allowed("shutil.copy2 reads the attributes it copies"),
    "lgetxattr": Allowed("shutil.copy2 of a link's attributes"),
    "fgetxattr": Allowed("os.getxattr of an open file"),
    "sendfile": Allowed("shutil.copyfile copies a file with it"),
    "dup": Allowed("os.dup"),
    "dup2": Allowed("os.dup2 (x86_64)"),
    "dup3": Allowed("os.dup2"),
    "fcntl": Allowed(
        "descriptor flags and locks; not F_SETOWN (a signal to another process)",
        1,
        (F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK, F_SETLKW, F_DUPFD_CLOEXEC),
    ),
    "ioctl": Allowed(
        "isatty (TCGETS) on every open, the terminal's size, close-on-exec and non-blocking flags; "
        "not TIOCSTI (typing into a terminal)",
        1,
        (TCGETS, TIOCGWINSZ, FIONBIO, FIONCLEX, FIOCLEX),
    ),
    # threads (threading.Thread, numpy's OpenBLAS) and waiting
    "clone": Allowed(
        "a new thread: CLONE_THREAD and no namespace flag (never a process)", 0, (CLONE_THREAD,), CLONE_MASK
    ),
    "futex": Allowed("locks, conditions, joining a thread, the GIL"),
    "set_robust_list": Allowed("glibc registers each new thread's locks"),
    "rseq": Allowed("glibc registers each new thread's restartable sequences"),
    "set_tid_address": Allowed("glibc's thread bookkeeping"),
    "sched_yield": Allowed("OpenBLAS's threads wait for work"),
    "sched_getaffinity": Allowed("os.cpu_count's usable CPUs; OpenBLAS counts its threads"),
    "exit": Allowed("a thread ends"),
    "exit_group": Allowed("the process ends"),
    # signals (to itself)
    "rt_sigaction": Allowed("signal.signal; glibc's thread cancellation handler"),
    "rt_sigprocmask": Allowed("blocking signals around a new thread"),
    "rt_sigreturn": Allowed("returning from a signal handler"),
    "sigaltstack": Allowed("faulthandler's stack for a fatal signal"),
    "restart_syscall": Allowed("a call interrupted by a signal resumes"),
    "kill": Allowed("os.kill: signals but those from outside", 1, CHILD_SIGNALS),
    "tgkill": Allowed("signal.raise_signal, pthread_kill, abort: signals but those from outside", 2, CHILD_SIGNALS),
    "alarm": Allowed("signal.alarm, a timeout of its own (x86_64)"),
    "setitimer": Allowed("signal.setitimer, a timeout of its own"),
    "getitimer": Allowed("signal.getitimer"),
    # time, identity, randomness, limits
    "clock_gettime": Allowed("time.time, time.perf_counter, time.process_time, thread_time"),
    "clock_getres": Allowed("time.get_clock_info"),
    "gettimeofday": Allowed("old-style time of day"),
    "time": Allowed("time() (x86_64)"),
    "clock_nanosleep": Allowed("time.sleep"),
    "nanosleep": Allowed("usleep in libraries"),
    "getrusage": Allowed("resource.getrusage"),
    "times": Allowed("os.times"),
    "getrandom": Allowed("random's seed, os.urandom, secrets, hash randomisation"),
    "getpid": Allowed("os.getpid, random after a fork check, tempfile's names"),
    "getppid": Allowed("os.getppid"),
    "gettid": Allowed("threading.get_native_id; glibc's raise"),
    "getuid": Allowed("os.getuid, getpass, pathlib.Path.home"),
    "geteuid": Allowed("os.geteuid"),
    "getgid": Allowed("os.getgid"),
    "getegid": Allowed("os.getegid"),
    "uname": Allowed("platform, os.uname, glibc's checks"),
    "sysinfo": Allowed("OpenBLAS reads the memory size"),
    "prlimit64": Allowed("resource.setrlimit and getrlimit on itself only (pid 0)", 0, (0,)),
    "prctl": Allowed(
        "PR_SET_PDEATHSIG (the harness dies with the grader) and a thread's name",
        0,
        (PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_SET_NAME, PR_GET_NAME),
    ),
}

#: The refused calls that fail with another errno than EPERM: socket with EACCES (as Docker's
#: profile and Landlock answer), clone3 with ENOSYS (its flags are in memory, where no filter can
#: read them; glibc then falls back to clone, whose flags the filter checks).
REFUSED_WITH = {"socket": errno.EACCES, "clone3": errno.ENOSYS}
REFUSED_ERRNO = errno.EPERM  # every other call outside ALLOWED


class FilterUnavailable(UsageError, RuntimeError):
    """libseccomp or its binding is missing; the message says how to get them."""


def _binding() -> ModuleType:
    try:
        import pyseccomp
    except ImportError as error:  # the binding itself (a pure-Python package) or libseccomp.so.2 under it
        raise FilterUnavailable(
            f"the seccomp filter cannot be built ({error}): install libseccomp2 (apt-get install libseccomp2) "
            "and the grader's requirements (pip install -r requirements.txt)"
        ) from None
    binding: ModuleType = pyseccomp
    return binding


def _number(binding: ModuleType, name: str) -> int | None:
    """The call's number on this machine's architecture; None when the architecture lacks it."""
    number = int(binding.resolve_syscall(binding.Arch.NATIVE, name))
    return number if number >= 0 else None  # -1: unknown to libseccomp; below: not on this architecture


def allowed_here() -> list[str]:
    """The names of ``ALLOWED`` this machine's architecture has (what its filter allows)."""
    binding = _binding()
    return [name for name in ALLOWED if _number(binding, name) is not None]


@functools.lru_cache(maxsize=1)
def child_filter() -> bytes:
    """The filter as raw BPF for this machine's architecture; ``FilterUnavailable`` when libseccomp
    cannot build it. Kept in the private cache once built (``_filter_key``): a command then imports
    no binding (its import runs ``ldconfig -p`` twice, about 30 ms of every command)."""
    stored = cache.cache_dir() / f"seccomp-{_filter_key()[:32]}.bpf"
    try:
        kept = stored.read_bytes()
        if kept:
            return kept
    except OSError:
        pass
    binding = _binding()
    try:
        built = _build(binding)
    except (OSError, RuntimeError, ValueError) as error:  # e.g. a libseccomp too old for a rule
        raise FilterUnavailable(
            f"libseccomp could not build the seccomp filter ({error}): install libseccomp2 2.5 or newer "
            "(apt-get install libseccomp2)"
        ) from None
    cache.write_atomic(stored, built)
    return built


def _filter_key() -> str:
    """What the built filter depends on: the rules, this machine's architecture, and where the
    binding is and when it last changed (a libseccomp that knows more calls comes with a new binding
    install, or with ``make setup`` again). Raw BPF is the kernel's format: the same filter
    whichever process built it."""
    spec = importlib.util.find_spec("pyseccomp")  # located, not imported
    origin = spec.origin if spec is not None and spec.origin else ""
    try:
        changed = os.stat(origin).st_mtime_ns if origin else None
    except OSError:
        changed = None
    rules = [sorted(ALLOWED.items()), sorted(REFUSED_WITH.items()), REFUSED_ERRNO]
    return cache.fingerprint([rules, platform.machine(), sys.byteorder, origin, changed])


def _build(binding: ModuleType) -> bytes:
    refused = binding.ERRNO(REFUSED_ERRNO)
    rules = binding.SyscallFilter(defaction=refused)
    rules.set_attr(binding.Attr.ACT_BADARCH, refused)  # a call of another ABI (x32, int 0x80) fails too
    rules.set_attr(binding.Attr.CTL_OPTIMIZE, 2)  # a binary tree: each call finds its rule in a few steps
    for name, allowed in ALLOWED.items():
        number = _number(binding, name)
        if number is None:
            continue
        if allowed.argument is None:
            rules.add_rule(binding.ALLOW, number)
            continue
        for value in allowed.values:
            rules.add_rule(binding.ALLOW, number, binding.Arg(allowed.argument, binding.MASKED_EQ, allowed.mask, value))
    for name, code in REFUSED_WITH.items():
        number = _number(binding, name)
        if number is not None:
            rules.add_rule(binding.ERRNO(code), number)
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()
