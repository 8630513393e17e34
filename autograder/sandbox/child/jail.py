"""Enclosing the child (standard library only; imported by ``harness.py`` inside the child).

Two isolations, chosen by the parent (``autograder.sandbox``):

- ``jail``: new mount, PID, network, IPC and UTS namespaces (plus a user namespace when not
  root). The child sees a fresh root holding only what Python needs, read-only: the system's
  ``/usr``, the interpreter's prefix, the virtual environment (with the evaluation libraries
  covered, and every site-packages or dist-packages folder covered by an empty one that shows
  only the allowed packages: ``jail_hide``, ``jail_keep``), the submission's ``lab05`` package at
  ``/lab``, a small writable ``/scratch``
  (``/tmp`` points there) and a
  few devices. Then it drops to an unprivileged uid (or all capabilities) and sets
  ``no_new_privs``. Grading files, other submissions and the parent are not in its world.
- ``uid``: no namespaces (e.g. inside a container that forbids them): the child drops to an
  unprivileged uid and, where the kernel has Landlock, may read only ``read_paths`` (the same
  site folders left out but for the allowed packages); the grading files must be unreadable to
  that uid, which the parent verifies before grading. Its scratch is its work folder, bounded by
  the parent as ``/scratch`` is here (``sandbox/scratch.py``), and swept after it
  (``sandbox/cleanup.py``).
"""

import base64
import ctypes
import os

import confine

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from collections.abc import Callable
    from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
PR_CAPBSET_DROP = 24
DEVICES = ("null", "zero", "urandom", "random")
SCRATCH = "/scratch"  # the child's only writable place (also /tmp, unless Python itself lives there)

_libc = ctypes.CDLL(None, use_errno=True)


class JailError(OSError):
    """The kernel refused a step of the jail (e.g. namespaces are not permitted here)."""


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise JailError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode: Callable[[str | None], bytes | None] = lambda text: text.encode() if text is not None else None
    _check(
        _libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)),
        f"mount {source or fstype} on {target}",
    )


def _locked_flags(path: str) -> int:
    """The flags of the mount holding ``path`` that a remount in a user namespace must keep."""
    flags = os.statvfs(path).f_flag
    result = 0
    for st_flag, ms_flag in (
        (2, MS_NOSUID),
        (4, MS_NODEV),
        (8, MS_NOEXEC),
        (1024, MS_NOATIME),
        (2048, MS_NODIRATIME),
        (4096, MS_RELATIME),
    ):
        if flags & st_flag:
            result |= ms_flag
    return result


def _bind(source: str, target: str, writable: bool = False) -> None:
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    if not writable:
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | _locked_flags(source))


def _write(path: str, text: str) -> None:
    with open(path, "w") as out:
        out.write(text)


def _namespaces(config: "dict[str, Any]", report: "Callable[[dict[str, Any]], None]") -> bool:
    """Unshare; fork so the child is PID 1 of the new PID namespace. Returns True in the child."""
    uid, gid = os.getuid(), os.getgid()
    in_user_namespace = uid != 0
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags | (CLONE_NEWUSER if in_user_namespace else 0)), "unshare")
    if in_user_namespace:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")
    reported, go = os.pipe()
    child = os.fork()
    if child:  # stays outside: tells the parent whom to kill (first, before PID 1 says anything), then waits
        report({"jail_pid": child})
        os.write(go, b".")
        os.close(go)
        _, status = os.waitpid(child, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    os.close(go)
    os.read(reported, 1)
    os.close(reported)
    return in_user_namespace


def _build_root(config: "dict[str, Any]") -> None:
    root = config["jail_root"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=1024,mode=0755")
    for path in config["jail_read"]:
        if os.path.islink(path) and os.path.dirname(path) == "/":
            os.symlink(os.readlink(path), root + path)  # /lib -> usr/lib on merged-/usr systems
        elif os.path.exists(path):
            _bind(path, root + path)
    for path in config["jail_hide"]:
        kept = [entry for entry in config.get("jail_keep", ()) if os.path.dirname(entry) == path]
        if os.path.isdir(root + path) and kept:  # a site folder: an empty one, holding only the kept entries
            _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,nr_inodes=256,mode=0755")
            for entry in kept:
                _bind(entry, root + entry)
            _mount(None, root + path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        elif os.path.isdir(root + path):
            _mount("tmpfs", root + path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=0")
        elif os.path.exists(root + path):
            _mount("/dev/null", root + path, None, MS_BIND)
    _bind(config["lab_dir"], root + "/lab")
    os.makedirs(root + SCRATCH)
    scratch = f"size={config['limits']['tmp_mb']}m,nr_inodes={config['limits']['tmp_inodes']},mode=1777"
    _mount("tmpfs", root + SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, scratch)  # inodes cost kernel memory too
    if not os.path.lexists(root + "/tmp"):  # the Python read-only under /tmp (a clone in mktemp) keeps its place
        os.symlink(SCRATCH, root + "/tmp")
    for device in DEVICES:
        _bind(f"/dev/{device}", f"{root}/dev/{device}", writable=True)
    try:
        os.makedirs(root + "/proc")
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass  # some containers forbid a new /proc; Python does not need it
    _mount(None, root, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chroot(root)
    os.chdir(SCRATCH)


def _drop_capabilities() -> None:
    for capability in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def drop_user(uid: int) -> None:
    """Become ``uid`` (also as group) with no supplementary groups: root's powers are gone."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def enter(config: "dict[str, Any]", report: "Callable[[dict[str, Any]], None]") -> str:
    """Enclose this process as ``config["isolation"]`` says; returns where ``lab05`` now is."""
    if not config.get("seccomp"):  # defence in depth: the parent refuses to grade without it
        raise JailError(
            1,
            f"no seccomp filter was given for the {config['isolation']} mode: graded code runs only under "
            "the grader's filter (sandbox/seccomp.py: install libseccomp2 and the grader's requirements)",
        )
    os.environ.clear()
    os.environ.update(config["environment"])
    if config["isolation"] == "uid":
        drop_user(config["uid"])
        os.chdir(config["work_dir"])
        lab_dir: str = config["lab_dir"]
        confine.no_new_privs()
        devices = [f"/dev/{device}" for device in DEVICES]
        abi = confine.landlock([*config["read_paths"], lab_dir], [config["work_dir"], *devices])
        report({"landlock": abi})
    else:
        in_user_namespace = _namespaces(config, report)
        _build_root(config)
        if in_user_namespace:
            _drop_capabilities()
        else:
            drop_user(config["uid"])
        lab_dir = "/lab"
        confine.no_new_privs()
    confine.seccomp(base64.b64decode(config["seccomp"]))  # fails (ConfineError) rather than run unfiltered
    return lab_dir
