"""What this machine allows the sandbox, probed (nothing is printed here; ``python -m
autograder doctor`` and the platforms' entry points render it).

``probe`` finds out: the user, whether the kernel lets a child unshare a user namespace and the
jail's namespaces (and, when it refuses, the likely reason), seccomp (the kernel's, this
process's mode, whether a child can install a filter, libseccomp and its Python binding), the
memory and CPU limits of this process's cgroup (v1 or v2), the grader's and the child's Python,
whether the uid fallback works, and which isolation ``auto`` chooses. The kernel's answers come
from ``child/abilities.py``, run with the child interpreter in a process of its own.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autograder.sandbox import isolation as isolations
from autograder.sandbox import seccomp
from autograder.sandbox.child import confine

ABILITIES = Path(__file__).resolve().parent / "child" / "abilities.py"
UNLIMITED = 1 << 60  # a cgroup v1 "no limit" is a number near 2**63
MiB = 1 << 20


@dataclass(frozen=True)
class Finding:
    """A yes or no, and why."""

    ok: bool
    detail: str


@dataclass(frozen=True)
class Seccomp:
    kernel: bool  # the kernel filters system calls (seccomp is built in)
    mode: int  # this process's seccomp mode: 0 none, 2 filtered (e.g. Docker's default profile), -1 no seccomp
    filter: Finding  # a child can install a seccomp filter here (proved by installing an allow-all one)
    libseccomp: str  # the shared library's name, or "" when it is not installed
    python_binding: bool  # the child interpreter imports ``seccomp`` (libseccomp's binding)
    uid_mode_filter: bool = False  # the grader can build the filter every child installs (``filters``)
    landlock: int = 0  # the Landlock ABI that confines the uid mode's children to their files (0: none)


@dataclass(frozen=True)
class Resources:
    """This process's cgroup limits (None: no limit) and the machine's own size."""

    cgroup: str  # where the limits were read: "v1 memory:/path, v1 cpu:/path" or "v2 /path"
    memory_bytes: int | None
    swap_bytes: int | None  # v1: memory plus swap (memsw); v2: swap alone
    cpus: float | None  # CPU quota in CPUs (quota / period)
    ram_bytes: int  # MemTotal
    cores: int  # CPUs this process may run on


@dataclass(frozen=True)
class Machine:
    user: str  # name (uid)
    root: bool
    kernel: str
    user_namespaces: Finding
    jail_namespaces: Finding  # what the jail unshares (mount, PID, network, IPC, UTS; user when not root)
    seccomp: Seccomp
    uid_fallback: Finding
    resources: Resources
    python: str  # the grader's: version (executable)
    child_python: str  # the child's
    auto: Finding  # which isolation ``auto`` chooses, or why it cannot grade here

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- cgroups


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def cgroup_folders() -> dict[str, Path]:
    """Controller (``memory``, ``cpu``, ...; ``""`` for the v2 hierarchy) -> the folder of this
    process's cgroup in it, from ``/proc/self/cgroup`` and the cgroup mounts."""
    membership: dict[str, str] = {}
    for line in (_read(Path("/proc/self/cgroup")) or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                membership[controller] = parts[2]
    folders: dict[str, Path] = {}
    for line in (_read(Path("/proc/self/mountinfo")) or "").splitlines():
        left, _, right = line.partition(" - ")
        fields, described = left.split(), right.split()
        if len(fields) < 5 or len(described) < 3 or described[0] not in ("cgroup", "cgroup2"):
            continue
        mount_root, mount_point = fields[3], Path(fields[4])
        keys = [""] if described[0] == "cgroup2" else [o for o in described[2].split(",") if o in membership]
        for key in keys:
            path = membership.get(key)
            if path is None or key in folders:
                continue
            inside = path[len(mount_root) :] if path.startswith(mount_root) else path
            folder = mount_point / inside.lstrip("/")
            folders[key] = folder if folder.is_dir() else mount_point
    return folders


def _smallest(folder: Path, reader: Callable[[Path], float | None]) -> int | float | None:
    """The smallest limit ``reader(place)`` finds in ``folder`` and its parents up to the cgroup
    mount (None: no limit anywhere)."""
    found: float | None = None
    top = _mount_of(folder)
    for place in [folder, *folder.parents]:
        value = reader(place)
        if value is not None:
            found = value if found is None else min(found, value)
        if place == top or place == place.parent:
            break
    return found


def _file(name: str, parse: Callable[[str | None], float | None]) -> Callable[[Path], float | None]:
    return lambda place: parse(_read(place / name))


def _bytes(text: str | None) -> int | None:
    if text is None or text == "max" or not text.lstrip("-").isdigit():
        return None
    value = int(text)
    return value if 0 <= value < UNLIMITED else None


def _v1_cpus(folder: Path) -> float | None:
    quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
    if quota is None or period is None or int(quota) <= 0 or int(period) <= 0:
        return None
    return int(quota) / int(period)


def _v2_cpus(text: str | None) -> float | None:
    if not text or text.split()[0] == "max":
        return None
    quota, period = text.split()[:2]
    return int(quota) / int(period)


def _mount_of(folder: Path) -> Path:
    """The cgroup mount point above ``folder`` (the folder whose parent is not a cgroup)."""
    while (folder.parent / "cgroup.procs").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def resources() -> Resources:
    """The memory and CPU limits of this process's cgroup, v1 or v2 (the controller's own
    hierarchy wins where both are mounted), and the machine's RAM and CPUs."""
    folders = cgroup_folders()
    v2 = folders.get("")
    v2_controllers = (_read(v2 / "cgroup.controllers") or "").split() if v2 else []
    memory = swap = None
    cpus: float | None = None
    where = []
    if "memory" in folders:
        folder = folders["memory"]
        memory = _smallest(folder, _file("memory.limit_in_bytes", _bytes))
        swap = _smallest(folder, _file("memory.memsw.limit_in_bytes", _bytes))
        where.append(f"v1 memory:{folder}")
    elif v2 is not None and "memory" in v2_controllers:
        memory = _smallest(v2, _file("memory.max", _bytes))
        swap = _smallest(v2, _file("memory.swap.max", _bytes))
        where.append(f"v2 {v2}")
    cpu_folder = folders.get("cpu")
    if cpu_folder is not None:
        cpus = _smallest(cpu_folder, _v1_cpus)
        where.append(f"v1 cpu:{cpu_folder}")
    elif v2 is not None and "cpu" in v2_controllers:
        cpus = _smallest(v2, _file("cpu.max", _v2_cpus))
        if f"v2 {v2}" not in where:
            where.append(f"v2 {v2}")
    ram = 0
    for line in (_read(Path("/proc/meminfo")) or "").splitlines():
        if line.startswith("MemTotal:"):
            ram = int(line.split()[1]) * 1024
    return Resources(
        cgroup=", ".join(where) or "none found",
        memory_bytes=None if memory is None else int(memory),
        swap_bytes=None if swap is None else int(swap),
        cpus=cpus,
        ram_bytes=ram,
        cores=len(os.sched_getaffinity(0)),
    )


# ---------------------------------------------------------------- namespaces, seccomp, isolation


def _errno_name(code: int) -> str:
    return f"{errno.errorcode.get(code, code)} ({os.strerror(code)})" if code < 255 else "the probe crashed"


def _refusal_reasons(root: bool) -> list[str]:
    """What in this machine's settings refuses namespaces (the usual suspects, as found)."""
    reasons = []
    settings = {
        "/proc/sys/kernel/unprivileged_userns_clone": ("0", "kernel.unprivileged_userns_clone = 0"),
        "/proc/sys/user/max_user_namespaces": ("0", "user.max_user_namespaces = 0"),
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": (
            "1",
            "kernel.apparmor_restrict_unprivileged_userns = 1 (AppArmor restricts them)",
        ),
    }
    for path, (value, reason) in settings.items():
        if _read(Path(path)) == value and not (root and "unprivileged" in path):
            reasons.append(reason)
    status = _read(Path("/proc/self/status")) or ""
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields.get("Seccomp", "").strip() == "2":
        reasons.append("this process runs under a seccomp filter (a container's, e.g. Docker's default profile)")
    capabilities = int(fields.get("CapEff", "0").strip() or "0", 16)
    if root and not capabilities & (1 << 21):
        reasons.append("root here lacks CAP_SYS_ADMIN (an unprivileged container)")
    return reasons


def _namespace_finding(code: int, what: str, root: bool) -> Finding:
    if code == 0:
        return Finding(True, f"a child can unshare {what}")
    reasons = _refusal_reasons(root)
    return Finding(
        False,
        f"unshare of {what} fails with {_errno_name(code)}" + (f": {'; '.join(reasons)}" if reasons else ""),
    )


def _abilities(python: str) -> dict[str, Any]:
    result = subprocess.run([python, "-I", "-B", str(ABILITIES)], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise isolations.IsolationError(
            f"cannot run the child interpreter {python}: {result.stderr.strip()[-300:] or result.returncode}"
        )
    return dict(json.loads(result.stdout))


def _choice(mode: str, python: str, uid: int, banned: tuple[str, ...]) -> Finding:
    try:
        chosen = isolations.choose(mode, python, uid, banned)
    except isolations.IsolationError as error:
        return Finding(False, str(error))
    return Finding(True, str(chosen.mode))


def _uid_fallback(python: str, uid: int, banned: tuple[str, ...], root: bool) -> Finding:
    if not root:
        return Finding(False, "needs the grader to run as root (to start children as another user)")
    found = _choice("uid", python, uid, banned)
    if not found.ok:
        return found
    import pwd

    try:
        account = f"the account {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        account = "no account"
    return Finding(True, f"children run as uid {uid} ({account}); a probe child could not read the grader's files")


_VERSIONS = """
import importlib.metadata, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        found[name] = None
print(json.dumps(found))
"""


def child_packages(python: str, names: Iterable[str]) -> dict[str, str | None]:
    """The version of each of ``names`` installed for the child interpreter ``python`` (None: not
    there); ``{}`` when the interpreter cannot say."""
    try:
        done = subprocess.run([python, "-I", "-c", _VERSIONS, *names], capture_output=True, text=True, timeout=60)
        return dict(json.loads(done.stdout)) if done.returncode == 0 else {}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def probe(python: str | None = None, uid: int = isolations.DEFAULT_UID, banned: tuple[str, ...] = ()) -> Machine:
    """Everything above, for the child interpreter ``python`` (default: the grader's own)."""
    python = python or isolations.default_child_python()
    root = os.getuid() == 0
    try:
        import pwd

        name = pwd.getpwuid(os.getuid()).pw_name
    except (KeyError, ImportError):
        name = "?"
    try:
        found = _abilities(python)
    except (isolations.IsolationError, OSError, ValueError, subprocess.TimeoutExpired) as error:
        unknown = Finding(False, f"not probed: {error}")
        return Machine(
            user=f"{name} (uid {os.getuid()})",
            root=root,
            kernel=platform.release(),
            user_namespaces=unknown,
            jail_namespaces=unknown,
            seccomp=Seccomp(kernel=False, mode=-1, filter=unknown, libseccomp="", python_binding=False),
            uid_fallback=unknown,
            resources=resources(),
            python=f"{platform.python_version()} ({sys.executable})",
            child_python=f"? ({python})",
            auto=_choice("auto", python, uid, banned),
        )
    filter_code = found["seccomp_filter"]
    seccomp = Seccomp(
        kernel=found["seccomp_mode"] >= 0,
        mode=found["seccomp_mode"],
        filter=Finding(True, "a child can install a seccomp filter")
        if filter_code == 0
        else Finding(False, f"installing a seccomp filter fails with {_errno_name(filter_code)}"),
        libseccomp=found["libseccomp"],
        python_binding=found["seccomp_binding"],
        uid_mode_filter=_filter_builds(),
        landlock=confine.landlock_abi(),
    )
    jail_what = "the jail's namespaces (mount, PID, network, IPC, UTS" + (")" if root else ", user)")
    return Machine(
        user=f"{name} (uid {os.getuid()})",
        root=root,
        kernel=platform.release(),
        user_namespaces=_namespace_finding(found["user_namespace"], "a user namespace", root),
        jail_namespaces=_namespace_finding(found["jail_namespaces"], jail_what, root),
        seccomp=seccomp,
        uid_fallback=_uid_fallback(python, uid, banned, root),
        resources=resources(),
        python=f"{platform.python_version()} ({sys.executable})",
        child_python=f"{found['python']} ({python})",
        auto=_choice("auto", python, uid, banned),
    )


def _filter_builds() -> bool:
    try:
        seccomp.child_filter()
    except seccomp.FilterUnavailable:
        return False
    return True
