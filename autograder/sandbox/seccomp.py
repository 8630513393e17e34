"""The seccomp filter every child installs before student code runs, built here (the trusted parent)
with libseccomp, through its Python binding, and handed to the child as raw BPF (the child installs
it with the standard library alone: ``sandbox/child/confine.py``).

What it refuses: sockets of every family (no network, not even a local listener; a socketpair
is still possible), io_uring (it would bypass the socket rule), ptrace and the reading or writing
of another process's memory, new namespaces, mounts, BPF programs, perf events, keyrings and
kernel modules; new processes (fork, vfork, a clone that is not a thread: graded code never needs
one, and processes of its own could busy the CPUs unseen by the time budget, which charges the
CPU time of the child's own threads); a lower priority or another scheduling policy (that would
make the child wait for a CPU, which the budget does not charge); sending the signals that end a
process from outside (SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGQUIT: so when one ends a child, someone
else sent it, and the call is not the submission's fault). Threads are allowed (numpy may start
them). Everything else is allowed: student code computes, it does not administer.
"""

from __future__ import annotations

import errno
import functools
import tempfile

REFUSED = (
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "open_by_handle_at",
    "name_to_handle_at",
    "fork",
    "vfork",
    "setpriority",
    "sched_setscheduler",
    "sched_setattr",
)
CLONE_THREAD = 0x00010000
#: The signals only someone outside the sandbox may send (``sandbox/runner.py: OUTSIDE_SIGNALS``).
OUTSIDE_SIGNALS = (1, 2, 3, 9, 15)  # SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM
#: Each system call that sends a signal, and which of its arguments is the signal.
SIGNAL_ARGUMENT = {
    "kill": 1,
    "tkill": 1,
    "tgkill": 2,
    "rt_sigqueueinfo": 1,
    "rt_tgsigqueueinfo": 2,
    "pidfd_send_signal": 1,
}
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


class FilterUnavailable(RuntimeError):
    """libseccomp or its binding is missing; the message says how to get them."""


@functools.lru_cache(maxsize=1)
def child_filter() -> bytes:
    """The filter as raw BPF for this machine's architecture."""
    try:
        import pyseccomp as seccomp
    except ImportError as error:  # the binding itself (a pure-Python package) or libseccomp.so.2 under it
        raise FilterUnavailable(
            f"the seccomp filter cannot be built ({error}): install libseccomp2 (apt-get install libseccomp2) "
            "and the grader's requirements (pip install -r requirements.txt)"
        ) from None
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.add_rule(seccomp.ERRNO(errno.EACCES), "socket")
    for name in REFUSED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):
            pass  # a syscall this architecture does not have
    for flag in NAMESPACE_FLAGS:  # clone with any namespace flag
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    for call, argument in SIGNAL_ARGUMENT.items():
        for number in OUTSIDE_SIGNALS:
            try:
                rules.add_rule(seccomp.ERRNO(errno.EPERM), call, seccomp.Arg(argument, seccomp.EQ, number))
            except (RuntimeError, ValueError, OSError):
                pass  # a syscall this architecture does not have
    # a clone that is not a thread is a new process
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")  # its flags are in memory: glibc falls back to clone
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()
