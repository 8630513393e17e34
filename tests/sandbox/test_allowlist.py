"""The children's seccomp allow-list (``sandbox/seccomp.py``), tried inside graded calls in the jail
and in the uid mode: what graded code may do (threads, numpy's threads, the examples' grading) and
the families of calls it may not (IPC, namespaces, sockets, new processes, ...), each refused with
its errno; a child given no filter refuses to run graded code."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import pickle
import sys
from pathlib import Path

import pytest

from autograder import paths, tempdirs
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.sandbox import isolation, runner, seccomp
from autograder.sandbox.outcomes import OutcomeStatus
from autograder.sandbox.settings import Call, Isolation, Limits, Mode
from tests.support import subs

pytestmark = [pytest.mark.sandbox]

#: jail: the children's environment; uid: the system's Python (as tests/end_to_end/test_hostile_submissions.py)
MODES = {"jail": {"mode": "jail"}, "uid": {"mode": "uid", "python": "/usr/bin/python3"}}
LIMITS = Limits(call_seconds=20, submission_seconds=40, memory_mb=1024, output_kb=8)

#: Each family of refused calls: what the probe tries (its key) and the errno the filter answers.
FAMILIES = [
    ("sysv-shm", errno.EPERM),  # shmget(IPC_PRIVATE)
    ("sysv-msg", errno.EPERM),  # msgget(IPC_PRIVATE)
    ("sysv-sem", errno.EPERM),  # semget(IPC_PRIVATE)
    ("posix-mq", errno.EPERM),  # mq_open(O_CREAT)
    ("unshare", errno.EPERM),  # unshare(0): a no-op the kernel would allow
    ("setns", errno.EPERM),  # setns(-1): the kernel would say EBADF
    ("socket", errno.EACCES),  # socket(AF_UNIX)
    ("socketpair", errno.EPERM),
    ("fork", errno.EPERM),  # os.fork: a clone without CLONE_THREAD
    ("clone3", errno.ENOSYS),  # so that glibc falls back to clone, whose flags the filter reads
    ("ptrace", errno.EPERM),  # ptrace(PTRACE_PEEKUSER, itself): the kernel would say ESRCH
    ("mount", errno.EPERM),  # mount on a missing folder: the kernel would say ENOENT
    ("bpf", errno.EPERM),  # an unknown command: the kernel would say EINVAL
    ("io_uring", errno.EPERM),  # io_uring_setup(0, NULL)
    ("keyctl", errno.EPERM),  # an unknown command: the kernel would say EOPNOTSUPP
    ("nice", errno.EPERM),  # a lower priority
    ("sigterm", errno.EPERM),  # a signal only the outside sends, to itself (ignored)
    ("sigterm-high-bits", errno.EPERM),  # the same with bits above the 32 the kernel reads
    ("prlimit-other", errno.EPERM),  # another process's limits (pid 1)
]

PROBE = """
import ctypes, errno, json, os, platform, signal, socket

_libc = ctypes.CDLL(None, use_errno=True)
_NUMBERS = {  # the calls libc has no function for, by architecture
    "x86_64": {"kill": 62, "keyctl": 250, "prlimit64": 302, "bpf": 321, "io_uring_setup": 425, "clone3": 435},
    "aarch64": {"kill": 129, "keyctl": 219, "prlimit64": 261, "bpf": 280, "io_uring_setup": 425, "clone3": 435},
}[platform.machine()]
_long = ctypes.c_long


def _answer(result):
    return 0 if result >= 0 else ctypes.get_errno()


def _syscall(name, *args):
    ctypes.set_errno(0)
    return _answer(_libc.syscall(_long(_NUMBERS[name]), *[_long(arg) if isinstance(arg, int) else arg for arg in args]))


def _ipc(get, remove, *args):
    ident = get(0, *args, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if ident < 0:
        return ctypes.get_errno()
    remove(ident)
    return 0


def _mq():
    name = b"/lab05-allowlist-%d" % os.getpid()
    fd = _libc.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, None)
    if fd < 0:
        return ctypes.get_errno()
    _libc.mq_close(fd)
    _libc.mq_unlink(name)
    return 0


def _python(action):
    try:
        action()
        return 0
    except OSError as error:
        return error.errno


def _fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def _sigterm():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.kill(os.getpid(), signal.SIGTERM)


def _sigusr1():
    signal.signal(signal.SIGUSR1, lambda *_: None)
    os.kill(os.getpid(), signal.SIGUSR1)


def probe():
    limits = ctypes.create_string_buffer(16)
    found = {
        "sysv-shm": _ipc(_libc.shmget, lambda ident: _libc.shmctl(ident, 0, None), 4096),
        "sysv-msg": _ipc(_libc.msgget, lambda ident: _libc.msgctl(ident, 0, None)),
        "sysv-sem": _ipc(_libc.semget, lambda ident: _libc.semctl(ident, 0, 0), 1),
        "posix-mq": _mq(),
        "unshare": _answer(_libc.unshare(0)),
        "setns": _answer(_libc.setns(-1, 0)),
        "socket": _python(lambda: socket.socket(socket.AF_UNIX).close()),
        "socketpair": _python(lambda: [end.close() for end in socket.socketpair()]),
        "fork": _python(_fork),
        "clone3": _syscall("clone3", None, 0),
        "ptrace": _answer(_libc.ptrace(3, os.getpid(), None, None)),
        "mount": _answer(_libc.mount(b"none", b"/lab05-no-such-folder", b"tmpfs", _long(0), None)),
        "bpf": _syscall("bpf", 9999, None, 0),
        "io_uring": _syscall("io_uring_setup", 0, None),
        "keyctl": _syscall("keyctl", 9999, 0, 0, 0, 0),
        "nice": _python(lambda: os.nice(1)),
        "sigterm": _python(_sigterm),
        "sigterm-high-bits": _syscall("kill", os.getpid(), (1 << 32) | signal.SIGTERM),
        "prlimit-other": _syscall("prlimit64", 1, 7, None, limits),
        "sigusr1": _python(_sigusr1),
    }
    return json.dumps(found)
"""

THREADS = """
import os

os.environ["OPENBLAS_NUM_THREADS"] = "2"  # before numpy loads OpenBLAS (the grader asks for 1)
import ctypes, glob, json, threading

import numpy


def threads():
    box = []
    thread = threading.Thread(target=lambda: box.append(sum(range(1000))))
    thread.start()
    thread.join()
    a = numpy.arange(90000, dtype=float).reshape(300, 300) % 7
    product = float((a @ a.T).trace())
    blas = 0
    libraries = os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "libopenblas*.so*")
    for path in glob.glob(libraries):
        library = ctypes.CDLL(path)
        for name in ("openblas_get_num_threads64_", "openblas_get_num_threads"):
            if hasattr(library, name):
                blas = getattr(library, name)()
    return json.dumps({"thread": box, "product": product, "blas_threads": blas})
"""


#: What honest graded code may do beyond the examples, each a few lines run inside one graded call.
HONEST = [
    ("sqlite3-in-memory", "import sqlite3\ndb = sqlite3.connect(':memory:')\ndb.execute('create table t (a)')\n"
     "db.executemany('insert into t values (?)', [(i,) for i in range(50)])\n"
     "assert db.execute('select sum(a) from t').fetchone()[0] == 1225\ndb.close()"),
    ("tempfile-and-replace", "import os, tempfile\nwith tempfile.TemporaryDirectory() as folder:\n"
     "    path = os.path.join(folder, 'run.txt')\n    handle, temporary = tempfile.mkstemp(dir=folder)\n"
     "    os.write(handle, b'1 Q0 d1 1 1.0 s\\n')\n    os.fsync(handle)\n    os.close(handle)\n"
     "    os.replace(temporary, path)\n    assert os.listdir(folder) == ['run.txt']"),
    ("shutil-copy", "import os, shutil\nopen('a.txt', 'w').write('x')\nshutil.copy2('a.txt', 'b.txt')\n"
     "assert open('b.txt').read() == 'x'\nos.remove('a.txt')\nos.remove('b.txt')"),
    ("json-and-pickle", "import json, pickle\nassert json.loads(json.dumps({'a': [1, 2.5]})) == {'a': [1, 2.5]}\n"
     "assert pickle.loads(pickle.dumps({1, 2})) == {1, 2}"),
    ("sleep-and-clocks", "import time\nstart = time.monotonic()\ntime.sleep(0.01)\n"
     "assert time.monotonic() > start and time.process_time() > 0 and time.time() > 0"),
    ("threads-and-a-pool", "import threading, concurrent.futures\nbox = []\n"
     "thread = threading.Thread(target=lambda: box.append(1))\nthread.start()\nthread.join()\n"
     "with concurrent.futures.ThreadPoolExecutor(2) as pool:\n    assert list(pool.map(abs, [-1, -2])) == [1, 2]"),
    ("random-and-hashes", "import random, hashlib, os, secrets, uuid\nrandom.seed(1)\nrandom.random()\n"
     "random.SystemRandom().random()\nhashlib.sha256(os.urandom(8)).hexdigest()\nsecrets.token_hex(4)\n"
     "uuid.uuid4()"),
    ("exact-numbers", "import decimal, fractions, statistics, math\n"
     "assert decimal.Decimal(1) / 4 == decimal.Decimal('0.25') and fractions.Fraction(1, 3) * 3 == 1\n"
     "assert statistics.mean([1, 2, 3]) == 2 and math.isclose(math.log2(8), 3)"),
    ("caches-and-collections", "import functools, collections, itertools\n"
     "cached = functools.lru_cache(maxsize=None)(lambda n: n * n)\nassert cached(3) == 9\n"
     "assert collections.Counter('aab')['a'] == 2 and len(list(itertools.permutations(range(4)))) == 24"),
    ("printing", "import sys\nprint('honest output')\nprint('to stderr', file=sys.stderr)\nsys.stdout.flush()"),
    ("limits-and-usage", "import resource, os\nresource.getrlimit(resource.RLIMIT_AS)\n"
     "resource.getrusage(resource.RUSAGE_SELF)\nos.cpu_count()\nos.getpid()\nos.times()"),
    ("signals-to-itself", "import signal\nsignal.signal(signal.SIGALRM, lambda *_: None)\n"
     "signal.setitimer(signal.ITIMER_REAL, 0.001)\nsignal.setitimer(signal.ITIMER_REAL, 0)\n"
     "import faulthandler\nfaulthandler.enable()\nfaulthandler.disable()"),
    ("numpy", "import numpy\na = numpy.random.default_rng(0).random((50, 50))\n"
     "assert numpy.allclose(a @ numpy.linalg.inv(a), numpy.eye(50))\nnumpy.save('a.npy', a)\n"
     "assert numpy.array_equal(numpy.load('a.npy'), a)"),
]  # fmt: skip

HONEST_SOURCE = """
import json, traceback


def honest(snippets):
    found = {}
    for name, code in snippets:
        try:
            exec(code, {})
            found[name] = "ok"
        except BaseException:
            found[name] = traceback.format_exc(limit=2)[-300:]
    return json.dumps(found)
"""


def _run(isolated: Isolation, source: str, function: str, args: list | None = None) -> tuple[object, str]:
    """Run ``function()`` of a metrics.py holding ``source`` in a child enclosed as ``isolated``:
    its answer (the JSON it returned, decoded) and what went wrong otherwise."""
    with tempdirs.folder("lab05-allowlist-") as temporary:
        folder = Path(temporary)
        os.chmod(folder, 0o711)
        package = folder / "lab" / "lab05"
        package.mkdir(parents=True)
        for name, text in (("__init__.py", ""), ("metrics.py", source), ("runs.py", "")):
            (package / name).write_text(text)
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        call = pickle.dumps({"fn": function, "file": "metrics.py", "args": args or []}, protocol=4)
        result = runner.run(
            folder / "lab",
            [Call(function, "metrics.py")],
            lambda index: index.to_bytes(4, "big") + call,
            LIMITS,
            isolated,
        )
    outcome = result.outcomes[0]
    assert outcome is not None
    if outcome.status != OutcomeStatus.VALUE:
        imported = result.imports.get("metrics.py")
        return None, f"{outcome.status} {outcome.detail} {outcome.error} {imported} {result.stderr[-500:]}"
    assert isinstance(outcome.value, dict)
    return json.loads(outcome.value["value"]), ""


@pytest.fixture(scope="module", params=list(MODES))
def enclosed(request) -> Isolation:
    """The isolation of each mode, its self-test passed (``isolation.choose``)."""
    return isolation.choose(**MODES[request.param])


@pytest.fixture(scope="module")
def probed(enclosed) -> dict:
    found, problem = _run(enclosed, PROBE, "probe")
    assert problem == "", problem
    assert isinstance(found, dict)
    return found


@pytest.mark.parametrize(("family", "expected"), FAMILIES, ids=[family for family, _ in FAMILIES])
def test_a_refused_family_fails_with_its_errno_in_a_graded_call(probed, family, expected):
    """Inside a graded call, does each family of refused calls fail with its errno (an exception
    the submission can catch and its feedback can show, never a killed child)?"""
    assert probed[family] == expected, f"{family}: errno {probed[family]}, expected {expected}"


def test_signals_to_itself_still_work(probed):
    """Does a signal the outside never sends (SIGUSR1) still reach the child itself?"""
    assert probed["sigusr1"] == 0


@pytest.fixture(scope="module")
def honest(enclosed) -> dict:
    found, problem = _run(enclosed, HONEST_SOURCE, "honest", [[list(row) for row in HONEST]])
    assert problem == "", problem
    assert isinstance(found, dict)
    return found


@pytest.mark.parametrize("name", [name for name, _ in HONEST])
def test_what_honest_code_may_do_runs_under_the_filter(honest, name):
    """Inside a graded call, does each thing honest code may do beyond the examples (sqlite3 in
    memory, a temporary file replacing the run file, threads, numpy, ...) run under the filter?"""
    assert honest[name] == "ok", honest[name]


def test_without_the_filter_every_family_gets_another_answer():
    """Does the same probe, unfiltered (--isolation none, this process's user), get another answer
    for every family (so the tests above can fail)?"""
    found, problem = _run(Isolation(Mode.NONE, sys.executable), PROBE, "probe")
    assert problem == "", problem
    assert isinstance(found, dict)
    same = {family: found[family] for family, expected in FAMILIES if found[family] == expected}
    assert same == {}, f"the kernel itself answers these as the filter does: {same}"


def test_numpy_and_python_threads_run_under_the_filter():
    """Under the filter, does a threading.Thread run, and does OpenBLAS start 2 threads and multiply
    matrices (the children's environment's numpy) with the right result?"""
    import numpy

    a = numpy.arange(90000, dtype=float).reshape(300, 300) % 7
    found, problem = _run(isolation.choose("jail"), THREADS, "threads")
    assert problem == "", problem
    assert isinstance(found, dict)
    assert found["thread"] == [sum(range(1000))]
    assert found["product"] == float((a @ a.T).trace())
    assert found["blas_threads"] >= 2, found


@pytest.mark.parametrize("mode", [Mode.JAIL, Mode.UID])
def test_a_child_given_no_filter_refuses_to_run_graded_code(mode):
    """Does a child whose isolation is not none but has no seccomp filter refuse to import and run
    graded code (the self-test fails, naming the missing filter)?"""
    python = MODES[mode]["python"] if "python" in MODES[mode] else isolation.default_child_python()
    filtered = isolation.choose(mode, python=python)
    unfiltered = Isolation(
        mode=filtered.mode,
        python=filtered.python,
        uids=filtered.uids,
        read_paths=filtered.read_paths,
        hidden_paths=filtered.hidden_paths,
        banned=filtered.banned,
        seccomp=b"",
    )
    assert isolation.self_test(filtered) is None
    problem = isolation.self_test(unfiltered)
    assert problem is not None and "no seccomp filter was given" in problem, problem


def test_grading_refuses_to_start_without_the_filter(monkeypatch, tmp_path):
    """When the filter cannot be built (libseccomp missing, and no filter built before in the
    private cache), does choosing the jail or the uid mode fail with an IsolationError that says
    what to install?"""
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))  # no filter kept from before
    seccomp.child_filter.cache_clear()
    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # its import now fails
    try:
        for mode in (Mode.JAIL, Mode.UID):
            with pytest.raises(isolation.IsolationError, match="libseccomp2"):
                isolation.jail_isolation(sys.executable, mode=mode)
    finally:
        seccomp.child_filter.cache_clear()


#: calls that must never be in the allow-list: one of each refused family
NEVER_ALLOWED = [
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "semget", "semop", "mq_open", "mq_timedsend",
    "unshare", "setns", "socket", "socketpair", "connect", "bind", "listen", "accept", "sendto",
    "fork", "vfork", "clone3", "execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev",
    "mount", "umount2", "pivot_root", "chroot", "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter",
    "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module", "kexec_load",
    "setpriority", "sched_setscheduler", "sched_setattr", "tkill", "rt_sigqueueinfo", "pidfd_send_signal",
    "pidfd_open", "pipe2", "memfd_create", "userfaultfd", "seccomp", "setuid", "setresuid", "capset",
]  # fmt: skip


@pytest.mark.parametrize("name", NEVER_ALLOWED)
def test_the_allow_list_holds_no_refused_call(name):
    """Is this call of a refused family absent from the allow-list?"""
    assert name not in seccomp.ALLOWED


def test_every_allowed_call_has_a_reason_and_a_valid_restriction():
    """Does every entry of the allow-list say why in a line, and does every argument restriction name
    an argument (0 to 5) and at least one permitted value?"""
    for name, allowed in seccomp.ALLOWED.items():
        assert allowed.why.strip() and "\n" not in allowed.why, name
        if allowed.argument is not None:
            assert 0 <= allowed.argument <= 5 and allowed.values, name
        else:
            assert allowed.values == (), name


def test_restricted_calls_keep_the_outside_signals_and_threads_only():
    """Do kill and tgkill allow no signal the outside sends, clone only threads, and prlimit64 only
    this process?"""
    for name in ("kill", "tgkill"):
        assert not set(seccomp.ALLOWED[name].values) & set(seccomp.OUTSIDE_SIGNALS)
        assert 10 in seccomp.ALLOWED[name].values  # SIGUSR1
    clone = seccomp.ALLOWED["clone"]
    assert clone.values == (seccomp.CLONE_THREAD,) and all(clone.mask & flag for flag in seccomp.NAMESPACE_FLAGS)
    assert seccomp.ALLOWED["prlimit64"].values == (0,)


def test_the_filter_allows_what_this_architecture_has():
    """Is every name this architecture has in the filter, and the x86_64-only names left out on
    aarch64 (and kept on x86_64)?"""
    here = seccomp.allowed_here()
    assert {"read", "openat", "futex", "clone", "exit_group"} <= set(here)
    assert ("open" in here) == (os.uname().machine == "x86_64")


def _grades(out: Path) -> dict[str, dict[str, str]]:
    rows = csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8")))
    return {row["submission"]: row for row in rows}


@pytest.mark.slow
@pytest.mark.cranfield
@pytest.mark.parametrize("mode", list(MODES))
def test_the_examples_and_the_solution_grade_as_before(mode, tmp_path, cranfield):
    """Under the filter, do the five examples grade exactly as their golden grades.csv says
    (tests/golden), and the solution with full marks, in the jail and in the uid mode?"""
    settings = {"isolation": mode, **({"python": MODES[mode]["python"]} if "python" in MODES[mode] else {})}
    examples = tmp_path / "examples"
    batch.grade_batch(
        [paths.ROOT / "examples" / "submissions"],
        examples,
        jobs=2,
        progress=False,
        seed="golden",
        lab=default_lab(),
        **settings,
    )
    assert (examples / "grades.csv").read_text(encoding="utf-8") == (
        Path(__file__).parents[1] / "golden" / "grades-examples.csv"
    ).read_text(encoding="utf-8")
    subs.write(tmp_path / "in" / "solution", {})
    batch.grade_batch(
        [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, seed="golden", lab=default_lab(), **settings
    )
    solution = _grades(tmp_path / "out")["solution"]
    assert solution["status"] == "graded" and solution["total"] == solution["max"], solution
