"""Nothing of a child outlives it (``sandbox/cleanup.py``): whatever a sandbox uid leaves (files in
its work folder and in the shared folders, processes, a zombie leader with a live thread, System V
shared memory, message queues and semaphores, POSIX message queues) is gone once its child is
killed, and when a grader first takes the uid. Each object is made here AS the sandbox uid by a
forked helper, so the tests do not depend on what the seccomp filter lets a child make; then a real
child makes what it may, in the uid mode and in the jail."""

from __future__ import annotations

import ctypes
import errno
import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder import tempdirs
from autograder.sandbox import cleanup, isolation, leases, runner
from autograder.sandbox.settings import Call, Limits, Mode
from tests.support.sandbox_uid import as_uid

pytestmark = [pytest.mark.sandbox]

if os.getuid() != 0:  # pragma: no cover - CI runs the sandbox tests as root
    pytest.fail("the cleanup tests make objects as a sandbox uid: run them as root (CI does)", pytrace=False)

LIBC = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
O_RDWR, O_CREAT = 2, 0o100
SYS_EXIT = {"x86_64": 60, "aarch64": 93}[os.uname().machine]
TAG = f"lab05-cleanup-test-{os.getpid()}"


@pytest.fixture(scope="module")
def uid() -> int:
    """A sandbox uid this test process leases (never one another grader holds)."""
    return leases.lease(1, isolation.DEFAULT_UID)[0]


def _checked(result: int, what: str) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def _file_in(folder: str) -> Callable[[], object]:
    def make() -> object:
        path = os.path.join(folder, f"{TAG}-{os.path.basename(folder) or 'root'}")
        with open(path, "w") as out:
            out.write("left behind")
        return path

    return make


def _exists(path: object) -> bool:
    return os.path.lexists(str(path))


def _shm() -> object:
    return ("shm", _checked(LIBC.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o600), "shmget"))


def _shm_attached() -> object:
    number = _checked(LIBC.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o600), "shmget")
    LIBC.shmat.restype = ctypes.c_void_p
    address = LIBC.shmat(number, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    return ("shm", number)


def _msg() -> object:
    return ("msg", _checked(LIBC.msgget(IPC_PRIVATE, IPC_CREAT | 0o600), "msgget"))


def _sem() -> object:
    return ("sem", _checked(LIBC.semget(IPC_PRIVATE, 4, IPC_CREAT | 0o600), "semget"))


def _ipc_exists(made: object) -> bool:
    kind, number = made  # type: ignore[misc]
    lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
    return any(line.split()[1] == str(number) for line in lines[1:])


def _queue() -> object:
    name = f"/{TAG}-mq"
    descriptor = _checked(LIBC.mq_open(name.encode(), O_RDWR | O_CREAT, 0o600, None), "mq_open")
    LIBC.mq_close(descriptor)
    return name


def _queue_exists(name: object) -> bool:
    descriptor = LIBC.mq_open(str(name).encode(), O_RDWR)
    if descriptor >= 0:
        LIBC.mq_close(descriptor)
        return True
    assert ctypes.get_errno() == errno.ENOENT, os.strerror(ctypes.get_errno())
    return False


def _sleeper() -> object:
    return os.getpid()


def _zombie_leader() -> object:
    """A process whose leader has exited while another of its threads goes on (it shows as a zombie)."""
    import threading

    leader = os.fork()
    if leader:
        return leader
    os.closerange(3, 1024)  # not the helper's pipe: its reader waits for the end of it
    threading.Thread(target=lambda: time.sleep(600), daemon=True).start()
    LIBC.syscall(SYS_EXIT, 0)  # the leader's thread alone ends; its other thread runs on
    return leader  # pragma: no cover - never reached


def _leader_state(pid: object, patience: float = 10.0) -> str:
    """The state of process ``pid``'s leader thread once it has left running (``R``/``S``), or ``gone``."""
    end = time.monotonic() + patience
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "gone"
        if state not in "RS" or time.monotonic() > end:
            return state
        time.sleep(0.01)


#: id -> (what the helper makes as the uid, whether it is still there, the helper lives on)
KINDS = {
    "file-in-tmp": (_file_in("/tmp"), _exists, False),
    "file-in-var-tmp": (_file_in("/var/tmp"), _exists, False),
    "file-in-dev-shm": (_file_in("/dev/shm"), _exists, False),
    "shm-segment": (_shm, _ipc_exists, False),
    "shm-segment-attached-by-a-live-process": (_shm_attached, _ipc_exists, True),
    "message-queue": (_msg, _ipc_exists, False),
    "semaphore-set": (_sem, _ipc_exists, False),
    "posix-message-queue": (_queue, _queue_exists, False),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_what_a_sandbox_uid_made_is_gone_after_its_sweep(uid, kind):
    """Is what the sandbox uid made there until the sweep a killed child gets
    (``ChildProcess.kill`` calls ``cleanup.sweep``), and gone after it?"""
    make, exists, stay = KINDS[kind]
    made = as_uid(uid, make, stay=stay)
    try:
        assert exists(made), f"{kind}: the helper's {made} is not there"
        cleanup.sweep(uid)
        assert not exists(made), f"{kind}: {made} outlived the sweep of uid {uid}"
    finally:
        cleanup.sweep(uid)


@pytest.mark.parametrize("kind", ["process", "zombie-leader-with-a-live-thread"])
def test_no_process_of_a_sandbox_uid_outlives_its_sweep(uid, kind):
    """Does a process the sandbox uid left running (detached, or a zombie leader whose other
    thread runs on) run until the sweep, and no task of the uid after it?"""
    pid = as_uid(uid, _sleeper if kind == "process" else _zombie_leader, stay=kind == "process")
    try:
        assert cleanup.live_tasks(uid), f"{kind}: nothing of uid {uid} runs"
        if kind != "process":
            assert _leader_state(pid) == "Z", _leader_state(pid)
        cleanup.sweep(uid)
        assert cleanup.live_tasks(uid) == []
    finally:
        cleanup.sweep(uid)


@pytest.fixture
def work(uid):
    """A work folder of the uid, as the runner makes one (in a folder only root may list)."""
    with tempdirs.folder("lab05-cleanup-") as folder:
        os.chmod(folder, 0o711)
        work = Path(folder) / "work"
        work.mkdir()
        os.chown(work, uid, uid)
        yield work


def test_the_work_folder_is_emptied_and_kept(uid, work):
    """Are the files and folders the uid left in its work folder (nested too) gone after the sweep,
    and the folder itself still there for the next child?"""

    def fill() -> object:
        os.makedirs(work / "a" / "b")
        for path in (work / "top", work / "a" / "b" / "deep"):
            path.write_text("left behind")
        os.symlink("/etc", work / "link")
        return sorted(os.listdir(work))

    assert as_uid(uid, fill) == ["a", "link", "top"]
    cleanup.sweep(uid, work)
    assert work.is_dir() and os.listdir(work) == [] and Path("/etc/passwd").exists()


def test_files_deep_in_a_folder_everyone_may_write_are_removed(uid):
    """A file the uid put two levels down in root's folders that every user may write to (in /tmp):
    is it removed, and the folders (not the uid's) kept?"""
    top = Path("/tmp") / f"{TAG}-shared"
    (top / "inner").mkdir(parents=True)
    try:
        for folder in (top, top / "inner"):
            os.chmod(folder, 0o1777)
        left = as_uid(uid, _file_in(str(top / "inner")))
        assert _exists(left)
        cleanup.sweep(uid)
        assert not _exists(left) and (top / "inner").is_dir()
    finally:
        for folder in (top / "inner", top):
            for entry in folder.iterdir():
                entry.unlink() if entry.is_file() else None
            folder.rmdir()


#: /proc/sysvipc lines (header, row) -> the ids ``ipc_objects`` takes for uid 64123
IPC_TABLES = [
    (
        "owned-and-created",
        "shm",
        "key shmid perms size cpid lpid nattch uid gid cuid cgid",
        "0 7 600 1 1 1 0 64123 64123 64123 64123",
        [7],
    ),
    (
        "given-to-root",
        "shm",
        "key shmid perms size cpid lpid nattch uid gid cuid cgid",
        "0 8 600 1 1 1 0 0 0 64123 64123",
        [8],
    ),
    (
        "given-to-the-uid",
        "msg",
        "key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid",
        "0 9 600 0 0 0 0 64123 0 0 0",
        [9],
    ),
    ("someone-else-s", "sem", "key semid perms nsems uid gid cuid cgid", "0 10 600 4 1000 1000 1000 1000", []),
]


@pytest.mark.parametrize(
    ("kind", "header", "row", "expected"), [t[1:] for t in IPC_TABLES], ids=[t[0] for t in IPC_TABLES]
)
def test_ipc_objects_owned_or_created_by_the_uid_are_taken(kind, header, row, expected):
    """Does the sweep take an IPC object the uid owns or created (even one it gave to root), and
    none of another uid?"""
    assert cleanup.ipc_ids(f"{header}\n{row}\n", 64123) == expected


def test_a_uid_is_swept_when_a_grader_first_takes_it():
    """What a dead grader's child left (a process, a segment, a file) is gone once another grader
    leases the uid: is it there before and gone after ``leases.lease``? (A uid far from where
    graders start, so that none takes it while it is free.)"""
    uid = leases.lease(1, isolation.DEFAULT_UID + leases.SPAN - 64)[0]
    made = [as_uid(uid, _shm), as_uid(uid, _file_in("/tmp"))]
    as_uid(uid, _sleeper, stay=True)
    leases.release([uid])  # as if its grader had died
    try:
        assert _ipc_exists(made[0]) and _exists(made[1]) and cleanup.live_tasks(uid)
        assert leases.lease(1, uid) == (uid,)
        assert not _ipc_exists(made[0]) and not _exists(made[1]) and cleanup.live_tasks(uid) == []
    finally:
        cleanup.sweep(uid)
        leases.release([uid])


#: A child's probe: it makes each kind it may (files in the shared folders and its own folder,
#: System V objects, a POSIX queue, a process that stays) and says what it made (or why not).
PROBE = r"""
import ctypes, os


def probe(tag):
    libc = ctypes.CDLL(None, use_errno=True)
    made = {}

    def attempt(kind, make):
        try:
            made[kind] = make()
        except OSError as error:
            made[kind] = "refused: " + str(error.errno)

    def checked(value, what):
        if value < 0:
            raise OSError(ctypes.get_errno(), what)
        return value

    def write(folder):
        path = os.path.join(folder, tag)
        with open(path, "w") as out:
            out.write("left behind")
        return path

    for folder in ("/tmp", "/var/tmp", "/dev/shm", os.getcwd()):
        attempt("file " + folder, lambda folder=folder: write(folder))
    attempt("shm", lambda: checked(libc.shmget(0, 1 << 20, 0o1600), "shmget"))
    attempt("msg", lambda: checked(libc.msgget(0, 0o1600), "msgget"))
    attempt("sem", lambda: checked(libc.semget(0, 4, 0o1600), "semget"))
    def queue():
        libc.mq_close(checked(libc.mq_open(("/" + tag).encode(), 0o102, 0o600, None), "mq_open"))
        return "/" + tag

    attempt("mq", queue)
    attempt("process", lambda: os.fork() or os._exit(0))
    return [[kind, value] for kind, value in sorted(made.items())]
"""


def _real_child(mode: Mode, uid: int, folder: Path) -> dict:
    """What a real child (the probe) made, graded in ``mode`` as ``uid``."""
    package = folder / "lab" / "lab05"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "metrics.py").write_text(PROBE)
    (package / "runs.py").write_text("")
    os.chmod(folder, 0o711)
    for path in (folder / "lab", package, *package.iterdir()):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    enclosure = isolation.jail_isolation("/usr/bin/python3", (uid,), mode=mode)
    call = pickle.dumps({"fn": "probe", "file": "metrics.py", "args": [TAG]}, protocol=4)
    limits = Limits(call_seconds=20, submission_seconds=30, memory_mb=1024, output_kb=8)
    result = runner.run(
        folder / "lab", [Call("probe", "metrics.py")], lambda i: i.to_bytes(4, "big") + call, limits, enclosure
    )
    outcome = result.outcomes[0]
    assert outcome is not None and outcome.value is not None, (outcome, result.stderr[-500:])
    items = [item["items"] for item in outcome.value["items"]]
    return {pair[0]["value"]: pair[1]["value"] for pair in items}


#: What the seccomp filter answers a call it refuses (EPERM, EACCES, ENOSYS), as the probe reports it.
FILTER_ANSWERS = ("refused: 1", "refused: 13", "refused: 38")


@pytest.mark.parametrize("mode", [Mode.UID, Mode.JAIL])
def test_nothing_a_real_child_made_outlives_it(uid, mode):
    """A real child makes what the seccomp filter lets it (today: System V objects; an allow-list
    refuses them) and files, in the uid mode and in the jail: is every object it made gone once
    the run is over (in the jail its IPC and mount namespaces end with it; in the uid mode the
    sweep removes them)?"""
    with tempdirs.folder("lab05-cleanup-") as folder:
        made = _real_child(mode, uid, Path(folder))
    created = {kind: value for kind, value in made.items() if not str(value).startswith("refused")}
    for kind in ("shm", "msg", "sem"):  # today's filter lets a child make them; an allow-list refuses them
        assert kind in created or made[kind] in FILTER_ANSWERS, made
    assert any(kind.startswith("file") for kind in created), made  # in its own folder at least
    if mode == Mode.UID:  # in the jail the ids were its own namespace's
        for kind in ("shm", "msg", "sem"):
            assert kind not in created or not _ipc_exists((kind, created[kind])), f"{kind} {made[kind]} outlived it"
    assert cleanup.ipc_objects(uid) == []
    for kind, value in created.items():
        if kind.startswith("file"):
            assert not _exists(value), f"{value} outlived the child"
    if "mq" in created:
        assert not _queue_exists(created["mq"])
    assert cleanup.live_tasks(uid) == []


#: The attack found: what one child leaves, a later child of the same uid (any submission's) looks
#: up by its key or name. ``leave`` makes them and says which, ``die`` ends its child, ``look`` (in
#: a fresh child) says which it still finds.
LATER = r"""
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)


def leave(key, tag):
    made = []
    for kind, result in (
        ("shm", libc.shmget(key, 1 << 20, 0o1666)),
        ("msg", libc.msgget(key, 0o1666)),
        ("sem", libc.semget(key, 1, 0o1666)),
        ("mq", libc.mq_open(("/" + tag).encode(), 0o102, 0o666, None)),
    ):
        if result >= 0:
            made.append(kind)
    with open(tag, "w") as out:
        out.write("left for the next child")
    return made + ["file"]


def die(key, tag):
    os._exit(3)


def look(key, tag):
    found = [kind for kind, result in (
        ("shm", libc.shmget(key, 0, 0)),
        ("msg", libc.msgget(key, 0)),
        ("sem", libc.semget(key, 0, 0)),
        ("mq", libc.mq_open(("/" + tag).encode(), 0, 0, None)),
    ) if result >= 0]
    return found + (["file"] if os.path.exists(tag) else [])
"""


@pytest.mark.parametrize("mode", [Mode.UID, Mode.JAIL])
def test_a_later_child_finds_nothing_an_earlier_one_left(uid, mode):
    """A child makes a shared memory segment, a message queue and a semaphore set under a known
    key, a POSIX queue and a file, then dies; does the next child (same uid, a fresh process) find
    none of them, in the uid mode (the sweep) and in the jail (its namespaces and /scratch end
    with its PID 1)?"""
    key = 0x1AB00000 + os.getpid() % 0xFFFF
    functions = ["leave", "die", "look"]
    with tempdirs.folder("lab05-cleanup-") as temporary:
        folder = Path(temporary)
        package = folder / "lab" / "lab05"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "metrics.py").write_text(LATER)
        (package / "runs.py").write_text("")
        os.chmod(folder, 0o711)
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        enclosure = isolation.jail_isolation("/usr/bin/python3", (uid,), mode=mode)

        def payload(index: int) -> bytes:
            call = {"fn": functions[index], "file": "metrics.py", "args": [key, TAG]}
            return index.to_bytes(4, "big") + pickle.dumps(call, protocol=4)

        limits = Limits(call_seconds=20, submission_seconds=60, memory_mb=1024, output_kb=8)
        result = runner.run(
            folder / "lab", [Call(name, "metrics.py") for name in functions], payload, limits, enclosure
        )
    made, ended, found = result.outcomes
    assert made is not None and found is not None and ended is not None, result.outcomes
    left = [item["value"] for item in made.value["items"]]
    assert "file" in left, left  # and the System V objects, where the filter lets it (today's does)
    assert ended.status == "crash" and result.restarts == 1, ended
    assert [item["value"] for item in found.value["items"]] == []


def test_posix_queues_are_removed_where_the_machine_mounts_dev_mqueue(uid):
    """Where /dev/mqueue is mounted (Docker mounts it; this machine may not), is a queue of the
    uid removed from there (``remove_queues``' first way)? A helper mounts the queues in a mount
    namespace of its own and points ``cleanup.MQUEUE`` at them."""
    name = as_uid(uid, _queue)
    try:
        assert _queue_exists(name)
        helper = os.fork()
        if helper == 0:  # pragma: no cover - the helper's own process
            code = 1
            try:
                private = LIBC.unshare(0x00020000) == 0 and LIBC.mount(None, b"/", None, 16384 | (1 << 18), None) == 0
                if private and LIBC.mount(b"mqueue", b"/tmp", b"mqueue", 0, None) == 0:
                    cleanup.MQUEUE = "/tmp"
                    mounted = cleanup._is_mqueue("/tmp")
                    cleanup.remove_queues(uid)
                    code = 0 if mounted else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(helper, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert not _queue_exists(name)
    finally:
        cleanup.sweep(uid)
