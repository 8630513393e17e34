"""Choosing how children are enclosed, and proving it works before a batch starts.

``choose(mode="auto")`` prefers the namespace jail (root, or unprivileged user namespaces),
falls back to a separate uid when running as root where namespaces are forbidden (e.g. a
Gradescope container), and refuses to grade unsandboxed unless asked (``mode="none"``).
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from autograder import cache, environment, paths, tempdirs
from autograder.errors import UsageError
from autograder.sandbox import interpreter, leases, runner, seccomp
from autograder.sandbox.outcomes import OutcomeStatus
from autograder.sandbox.settings import Call, Isolation, Limits, Mode

#: Where a root grader starts looking for free sandbox uids to lease (``sandbox/leases.py``): it
#: takes the first ones no other grader holds. ``$AUTOGRADER_SANDBOX_UID`` moves it.
DEFAULT_UID = int(environment.get("SANDBOX_UID") or 64000)
SANDBOX_USER = leases.SANDBOX_USER
SYSTEM_READ = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/alternatives",  # Debian's numpy finds its BLAS through a link there
)


class IsolationError(UsageError, RuntimeError):
    """Children cannot be enclosed as asked; the message says why and what to do."""


def _minimal(paths: Iterable[str]) -> tuple[str, ...]:
    """Absolute existing paths, without those inside another one of the list."""
    kept: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths if p and os.path.exists(p)}):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return tuple(kept)


def jail_isolation(
    python: str,
    uids: tuple[int, ...] = (),
    banned: tuple[str, ...] = (),
    mode: Mode = Mode.JAIL,
    allowed: tuple[str, ...] | None = None,
) -> Isolation:
    """The namespace jail (or the uid mode) for ``python``: what its children may read, what they
    may not, and the seccomp filter they install; ``uids``: the leased uids they run as (root);
    ``allowed``: what graded code may import besides the standard library (None: anything), the
    only packages of the site folders the children see."""
    try:
        facts = interpreter.probe(python, banned, allowed)
    except interpreter.ProbeError as error:
        raise IsolationError(str(error)) from None
    library_paths = [p for p in facts["path"] if p and not p.endswith(".zip")]
    read = _minimal(
        [
            *SYSTEM_READ,
            facts["base_prefix"],
            facts["prefix"],
            *library_paths,
            os.path.dirname(os.path.realpath(facts["executable"])),
        ]
    )
    hidden = {os.path.abspath(p) for p in facts["banned"] if p}
    kept: tuple[str, ...] = ()
    if allowed is not None:
        sites, kept = interpreter.sealed(facts, read)
        hidden.update(sites)
    try:  # the same filter in both modes: no child runs graded code without it
        rules = seccomp.child_filter()
    except seccomp.FilterUnavailable as error:
        raise IsolationError(f"the {mode} mode needs its seccomp filter: {error}") from None
    if mode == Mode.UID:  # no mount to cover them: Landlock's list of what may be read leaves them out
        # (followed through links: a rule for /lib -> usr/lib would open all of /usr/lib again)
        read = _without(_minimal(os.path.realpath(path) for path in read), tuple(sorted(hidden)), kept)
    return Isolation(
        mode=mode,
        python=python,
        uids=tuple(uids) if os.getuid() == 0 else (),
        read_paths=read,
        hidden_paths=tuple(sorted(hidden)),
        kept_paths=kept,
        banned=banned,
        seccomp=rules,
        allowed=allowed,
    )


def _without(read: tuple[str, ...], hidden: tuple[str, ...], kept: tuple[str, ...] = ()) -> tuple[str, ...]:
    """``read`` with every path of ``hidden`` left out: a folder holding one is replaced by its
    entries (down to the hidden path's level), all but the hidden ones; a hidden folder by its
    entries in ``kept``."""
    found: set[str] = set()
    pending = list(read)
    while pending:
        path = pending.pop()
        if path in hidden:
            pending += [entry for entry in kept if os.path.dirname(entry) == path]
        elif any(h.startswith(path.rstrip("/") + "/") for h in hidden) and os.path.isdir(path):
            pending += [os.path.join(path, name) for name in sorted(os.listdir(path))]
        else:
            found.add(path)
    return tuple(sorted(found))


def _self_test(isolation: Isolation, extra: tuple[str, ...] = ()) -> str | None:
    """``self_test``, remembered while nothing it depends on changes: the isolation but its
    leased uids (as the proof's key: any sandbox uid is another user alike, and the probe runs as
    the first one only; a shared machine's graders lease different uids from one command to the
    next), this user, whether this process may unshare namespaces now (a container's seccomp
    profile, a sysctl, AppArmor can take that away after a test passed) and the grader's files it
    must not reach (their and their folders' modes and owners)."""
    modes: list[tuple[object, ...]] = []  # (path, mode, owner, group), or (path, None) where it cannot be read
    for path in protected_paths(extra):
        for part in [path, *path.parents]:
            try:
                info = os.stat(part)
                modes.append((str(part), info.st_mode, info.st_uid, info.st_gid))
            except OSError:
                modes.append((str(part), None))
    code = sorted(Path(__file__).parent.rglob("*.py"))  # all of the sandbox: parent side and child
    key = cache.fingerprint(
        [replace(isolation, uids=()), bool(isolation.uids), os.getuid(), _unshare_answer(), modes, *code]
    )
    stored = cache.cache_dir() / f"selftest-{key[:32]}.json"
    if stored.is_file():
        return None
    problem = self_test(isolation, protected_files(extra=extra))
    if problem is None:
        cache.write_json_atomic(stored, {"passed": True})
    return problem


def _unshare_answer() -> int:
    """What the kernel answers a forked child of this process asking for the jail's namespaces
    (0, or the errno): a few milliseconds, no interpreter started."""
    import ctypes

    flags = 0x00020000 | 0x04000000 | 0x08000000 | 0x20000000 | 0x40000000  # mount, UTS, IPC, PID, network
    if os.getuid() != 0:
        flags |= 0x10000000  # and a user namespace
    libc = ctypes.CDLL(None, use_errno=True)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the forked child
        code = 0 if libc.unshare(flags) == 0 else ctypes.get_errno() or 255
        os._exit(min(code, 255))
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


MODES = ("auto", *Mode)  # what --isolation accepts


def _leased(jobs: int, base: int) -> tuple[int, ...]:
    """The uids this grader's children run as: leased when it is root, none otherwise."""
    if os.getuid() != 0:
        return ()
    try:
        return leases.lease(jobs, base)
    except leases.LeaseError as error:
        raise IsolationError(str(error)) from None


def default_child_python() -> str:
    """The interpreter student code runs in unless told: ``$AUTOGRADER_CHILD_PYTHON``, else the child
    environment ``make setup`` builds (the allowed packages only, pinned as on the platforms), else
    (a warning in ``doctor``) this grader's own."""
    python = environment.get("CHILD_PYTHON") or str(paths.CHILD_VENV / "bin" / "python")
    return python if os.path.exists(python) else sys.executable


def choose(
    mode: str = "auto",
    python: str | None = None,
    uid: int = DEFAULT_UID,
    banned: tuple[str, ...] = (),
    protected: tuple[str, ...] = (),
    jobs: int = 1,
    allowed: tuple[str, ...] | None = None,
) -> Isolation:
    """The isolation to grade with; ``IsolationError`` when ``mode`` cannot be had here.
    ``uid``: where to start looking for ``jobs`` free sandbox uids to lease (as root);
    ``banned``: the top-level modules graded code may not import (hidden inside a jail);
    ``allowed``: what else it may import (grading.yml's ``allowed_imports``; None: anything): the
    site folders' other packages are not in the children's world;
    ``protected``: what children must not read beyond the grader's own files (a batch's folders)."""
    python = python or default_child_python()
    if mode not in MODES:
        raise IsolationError(f"unknown isolation {mode!r}: use {', '.join(MODES)}")
    uids = _leased(jobs, uid) if mode != Mode.NONE else ()
    if mode in ("auto", Mode.JAIL):
        isolation = jail_isolation(python, uids, banned, allowed=allowed)
        runner.prepare(isolation)  # the first child's interpreter starts while the rest is checked
        problem = _self_test(isolation, tuple(map(str, protected)))
        if problem is None:
            return isolation
        if mode == Mode.JAIL or os.getuid() != 0:
            raise IsolationError(
                f"cannot enclose submissions in a namespace jail here ({problem}). Run the grader as "
                "root (it then falls back to a separate user), enable unprivileged user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1), or, for trusted code only, pass "
                "--isolation none"
            )
    if mode in ("auto", Mode.UID):
        if os.getuid() != 0:
            raise IsolationError("--isolation uid needs the grader to run as root, to start children as another user")
        isolation = jail_isolation(python, uids, banned, Mode.UID, allowed)
        problem = _self_test(isolation, tuple(map(str, protected)))
        if problem is not None:
            raise IsolationError(f"children cannot run as uid {isolation.uid}: {problem}")
        return isolation
    return Isolation(mode=Mode.NONE, python=python, uids=(), banned=banned, allowed=allowed)


def reserve(isolation: Isolation, jobs: int) -> None:
    """Check that ``jobs`` workers have a leased sandbox uid each (``choose`` leased them, and swept
    what a dead grader left running as them)."""
    if os.getuid() == 0 and isolation.mode != Mode.NONE and len(isolation.uids) < jobs:
        raise IsolationError(f"{jobs} workers need {jobs} sandbox uids; this grader leased {len(isolation.uids)}")


_PROBE_SOURCE = """
import os


def probe(paths):
    readable = []
    for path in paths:
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                open(path, "rb").close()
            readable.append(path)
        except OSError:
            pass
    return readable
"""


def protected_paths(extra: tuple[str, ...] = ()) -> list[Path]:
    """What a child must never read: the grader and the lab's package, its reference and rubric, the
    solutions, the cache, the rest of the checkout (its history, its examples, its tests) and
    ``extra`` (a batch's class folders and output folder)."""
    checkout = [paths.ROOT / name for name in (".git", "examples", "tests", "README.md")]
    found = [
        paths.LAB_DATA,
        paths.SOLUTIONS,
        paths.RUBRIC,
        paths.PACKAGE,
        paths.LAB_PACKAGE,
        cache.cache_dir(),
        *checkout,
    ]
    return [path for path in found if path.exists()] + [Path(path) for path in extra]


def protected_files(limit: int = 2000, extra: tuple[str, ...] = ()) -> list[str]:
    """Every protected folder and file (the probe tries each one, not only the folders)."""
    found = []
    for root in protected_paths(extra):
        found.append(str(root))
        if root.is_dir():
            for folder, dirs, files in os.walk(root):
                found += [os.path.join(folder, name) for name in dirs + files]
                if len(found) > limit:
                    return found[:limit]
    return found


def self_test(isolation: Isolation, protected: Iterable[str] | None = None) -> str | None:
    """Run a probe child: None when it starts, answers, and can read none of ``protected``
    (default: the grader's own files); otherwise what went wrong."""
    protected = [str(p) for p in (protected or protected_files())]
    with tempdirs.folder("selftest-") as temporary:
        folder = Path(temporary)
        os.chmod(folder, 0o711)
        package = folder / "lab" / "probe"  # runner.run finds the one package the folder holds
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "metrics.py").write_text(_PROBE_SOURCE)
        (package / "runs.py").write_text("")
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        probe = pickle.dumps({"fn": "probe", "file": "metrics.py", "args": [protected]}, protocol=4)
        limits = Limits(call_seconds=20, submission_seconds=30, memory_mb=1024, output_kb=8)
        calls = [Call("probe", "metrics.py")]
        result = runner.run(folder / "lab", calls, lambda index: index.to_bytes(4, "big") + probe, limits, isolation)
    outcome = result.outcomes[0]
    assert outcome is not None  # runner.run decides every call
    if outcome.status != OutcomeStatus.VALUE:
        detail = outcome.detail or (outcome.error or {}).get("message", "")
        imported = result.imports.get("metrics.py")
        if imported is not None and imported.status != OutcomeStatus.OK:
            detail = imported.detail or (imported.error or {}).get("message", "")
        return f"the probe child failed ({outcome.status}: {detail}; stderr: {result.stderr.strip()[-300:]})"
    assert isinstance(outcome.value, dict)  # the probe's answer: its encoded list of what it could read
    readable = [item.get("value") for item in outcome.value.get("items", [])]
    if readable:
        shown = ", ".join(map(str, readable[:5])) + (f" and {len(readable) - 5} more" if len(readable) > 5 else "")
        return (
            f"a child could read what it must not: {shown}; make these unreadable to other users "
            "(chmod -R go-rwx on the grader's folder, as the Gradescope zip's setup.sh does, and on the "
            "class and output folders), or grade on a kernel with Landlock (Linux 5.13 or newer), which "
            "confines the uid mode's children to their own files"
        )
    return None
