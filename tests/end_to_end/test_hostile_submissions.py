"""Hostile and broken submissions: each gets a result with a clear message, earns nothing it did
not honestly compute, and leaves the grader, the batch and the other submissions untouched."""

from __future__ import annotations

import os
import re
import socket
import stat
import tempfile
import threading
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import intake
from autograder.lab import spec
from autograder.lab.spec import FUNCTIONS
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.support import attacks, container_sim, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

METRICS = {name for name, file in FUNCTIONS.items() if file == "metrics.py"}
STUB = {name: paths.handout_file(name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}
MARKER = "lab05-hostile-marker"
SECRET_PATHS = [str(paths.REFERENCE), str(paths.RUBRIC), str(paths.SOLUTIONS), str(paths.ROOT / "autograder")]


@dataclass(frozen=True)
class Hostile:
    id: str
    build: object  # callable(folder) -> path of the submission
    zero: frozenset = frozenset()  # functions that must score 0
    loses: frozenset = frozenset()  # functions that must lose points (some or all)
    full: str = "rest"  # "rest": every other function full marks; "" : no claim
    problem: str = ""  # in the student's problems
    flag: str = ""  # in the instructor's flags
    message: tuple = ()  # (function, text) in one of its case messages
    never: str = ""  # in no case message of any function (e.g. a leaked path)
    status: str = "graded"
    score: tuple | None = None  # (low, high) bounds of the total
    output: str = ""  # in what the code printed
    uid: dict = field(default_factory=dict)  # what differs in the uid mode (the same fields)
    # functions that score all 0 or all full marks together (an outcome that depends on the disk's
    # speed, e.g. whether a flood of files is done before the import's time is up)
    either: frozenset = frozenset()


def files(**content):
    """A builder: the solution with some files replaced (name_py=...)."""

    def build(folder):
        return subs.write(folder, {name.replace("_py", ".py"): value for name, value in content.items()})

    return build


def override(file, source, **more):
    return files(**{file.replace(".py", "_py"): subs.with_function(file, source)}, **more)


def zipped(entries, symlinks=()):
    def build(folder):
        folder.mkdir(parents=True)
        path = folder / "submission.zip"
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in entries.items():
                archive.writestr(name, data)
            for name, target in symlinks:
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                archive.writestr(info, target)
        return path

    return build


def symlinked(folder):
    subs.write(folder, {"metrics.py": None})
    os.symlink(paths.REFERENCE, folder / "metrics.py")
    return folder


def only_notebook(folder):
    folder.mkdir(parents=True)
    (folder / "lab05.ipynb").write_text("{}")
    (folder / "README.txt").write_text("my answers are in the notebook")
    return folder


def not_a_zip(folder):
    folder.mkdir(parents=True)
    (folder / "lab05.zip").write_bytes(b"PK\x03\x04 this is not really a zip")
    return folder / "lab05.zip"


S = subs.SOLUTION


def early(code: str, source: str) -> str:
    """``source`` with module-level ``code`` run first (right after its ``__future__`` import)."""
    marker = "from __future__ import annotations\n"
    return source.replace(marker, marker + code, 1) if marker in source else code + source


HOSTILE = [
    Hostile(
        "syntax-error",
        files(metrics_py=S["metrics.py"] + "\ndef broken(:\n    pass\n"),
        zero=frozenset(METRICS),
        problem="lab05/metrics.py could not be imported: SyntaxError",
    ),
    Hostile(
        "import-error",
        files(runs_py=early("import no_such_module_for_lab05\n", S["runs.py"])),
        zero=frozenset({"write_run"}),
        problem="no_such_module_for_lab05 may not be imported in this lab's graded code",
    ),
    Hostile(
        "missing-function",
        files(metrics_py=S["metrics.py"] + "\ndel largest_differences\n"),
        zero=frozenset({"largest_differences"}),
        message=("largest_differences", "has no function largest_differences"),
    ),
    Hostile(
        "wrong-signature",
        override(
            "metrics.py",
            """
        def precision_at_k(ranking, judgments):
            return 0.0
        """,
        ),
        zero=frozenset({"precision_at_k"}),
        message=("precision_at_k", "TypeError"),
    ),
    Hostile(
        "non-utf8",
        files(metrics_py=S["metrics.py"].encode() + b'\nNAME = "r\xe9sum\xe9"\n'),
        zero=frozenset(METRICS),
        problem="metrics.py is not UTF-8 text",
    ),
    Hostile(
        "non-utf8-comment",
        files(metrics_py=b"# r\xe9sum\xe9 of my code\n" + S["metrics.py"].encode()),
        problem="metrics.py is not UTF-8 text",
        score=(100, 100),
    ),
    Hostile(
        "empty-file", files(metrics_py=""), zero=frozenset(METRICS), message=("accuracy", "has no function accuracy")
    ),
    Hostile(
        "zip-escaping-paths",
        zipped(
            {
                "../../escaped.py": "x = 1",
                "/tmp/lab05-absolute.py": "x = 1",
                "lab05/metrics.py": S["metrics.py"],
                "lab05/runs.py": S["runs.py"],
            }
        ),
        flag="ignored the zip entry",
        score=(100, 100),
    ),
    Hostile(
        "zip-symlink",
        zipped({"runs.py": S["runs.py"]}, symlinks=[("metrics.py", str(paths.REFERENCE))]),
        zero=frozenset(METRICS),
        problem="metrics.py is a symbolic link in the zip",
    ),
    Hostile("folder-symlink", symlinked, zero=frozenset(METRICS), problem="metrics.py is a symbolic link"),
    Hostile(
        "huge-file",
        files(metrics_py=S["metrics.py"] + "#" + "x" * (2 << 20) + "\n"),
        zero=frozenset(METRICS),
        problem="metrics.py is larger than 1024 KiB",
    ),
    Hostile(
        "wrong-files", only_notebook, full="", status="error", score=(0, 0), problem="no metrics.py or runs.py found"
    ),
    Hostile("broken-zip", not_a_zip, full="", status="error", score=(0, 0), problem="not a readable zip"),
    Hostile(
        "infinite-loop",
        override(
            "metrics.py",
            """
        def precision_at_k(ranking, judgments, k, rel=1):
            while True:
                pass
        """,
        ),
        zero=frozenset({"precision_at_k"}),
        flag="timeout: precision_at_k",
        message=("precision_at_k", "did not finish in time"),
    ),
    Hostile(
        "slow-function",
        override(
            "metrics.py",
            """
        import time as _time
        _reference_ap = average_precision
        def average_precision(ranking, judgments, rel=1):
            _time.sleep(0.1)  # 0.1 s a call: its 50-odd calls need more than its 2 s budget
            return _reference_ap(ranking, judgments, rel)
        """,
        ),
        loses=frozenset({"average_precision"}),
        message=("average_precision", "time budget"),
    ),
    Hostile(
        "memory-bomb",
        override(
            "metrics.py",
            """
        def recall_at_k(ranking, judgments, k, rel=1):
            hoard = bytearray(16 << 30)
            return 0.0
        """,
        ),
        zero=frozenset({"recall_at_k"}),
        message=("recall_at_k", "MemoryError"),
    ),
    Hostile(
        "fork-at-import",
        files(
            metrics_py=early(
                "import os, time\nfor _ in range(100):\n    try:\n"
                "        if os.fork() == 0:\n            time.sleep(300)\n"
                "            os._exit(0)\n    except OSError:\n        break\n",
                S["metrics.py"],
            )
        ),
        score=(100, 100),
    ),
    Hostile(  # a new process is refused: the loop ends at once, and nothing is gained or harmed
        "fork-bomb",
        override(
            "metrics.py",
            """
        import os as _os
        _reference_accuracy = accuracy
        def accuracy(retrieved, relevant, collection_size):
            while True:
                try:
                    _os.fork()
                except OSError:
                    break
            return _reference_accuracy(retrieved, relevant, collection_size)
        """,
        ),
        score=(100, 100),
    ),
    Hostile(
        "process-spinners",
        attacks.process_spinners,
        zero=frozenset({"average_precision"}),
        message=("average_precision", "Operation not permitted"),
    ),
    Hostile("thread-spinners", attacks.thread_spinners, loses=frozenset({"reciprocal_rank"}), full=""),
    Hostile(  # the caller's ranking cut short (and a tuple cannot be cut: those random cases raise)
        "mutates-arguments",
        override(
            "metrics.py",
            """
        _reference_precision = precision_at_k
        def precision_at_k(ranking, judgments, k, rel=1):
            value = _reference_precision(ranking, judgments, k, rel)
            del ranking[k:]
            return value
        """,
        ),
        loses=frozenset({"precision_at_k"}),
        message=("precision_at_k", "changed its arguments"),
    ),
    Hostile(  # opens the run file to add to it: what was there stays
        "appends-to-the-run-file",
        files(runs_py=S["runs.py"].replace('open(path, "w"', 'open(path, "a"')),
        loses=frozenset({"write_run"}),
    ),
    Hostile(
        "sys-exit",
        override(
            "metrics.py",
            """
        import sys as _sys
        def reciprocal_rank(ranking, judgments, rel=1):
            _sys.exit(0)
        """,
        ),
        zero=frozenset({"reciprocal_rank"}),
        message=("reciprocal_rank", "SystemExit"),
    ),
    Hostile(
        "os-exit",
        override(
            "metrics.py",
            """
        import os as _os
        def largest_differences(scores_a, scores_b, n=2):
            _os._exit(3)
        """,
        ),
        zero=frozenset({"largest_differences"}),
        flag="crash: largest_differences",
    ),
    Hostile(
        "kill-the-parent",
        override(
            "metrics.py",
            """
        import os as _os, signal as _signal
        _reference_p = precision_at_k
        def precision_at_k(ranking, judgments, k, rel=1):
            for target in (_os.getppid(), 0, -1, 1):
                try:
                    _os.kill(target, _signal.SIGKILL)
                except OSError:
                    pass
            return _reference_p(ranking, judgments, k, rel)
        """,
        ),
        score=(100, 100),  # sending SIGKILL is refused by the seccomp filter, in every mode
    ),
    Hostile(
        "patch-the-harness",
        files(
            metrics_py=early(
                "import sys\nsys.modules['__main__'].encode = lambda value, depth=0: {'type': 'float', 'value': 0.5}\n",
                STUB["metrics.py"],
            ),
            runs_py=STUB["runs.py"],
        ),
        full="",
        score=(0, 15),
    ),
    Hostile(
        "forge-results",
        files(
            metrics_py=early(
                "import json, os\nforged = {'score': 100, 'tests': []}\n"
                "for path in ['/autograder/results/results.json', '/tmp/results.json', 'results.json',\n"
                "             os.path.expanduser('~/results.json'), '../results.json', '../../results.json',\n"
                f"             '{paths.ROOT}/forged-results.json']:\n"
                "    try:\n        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)\n"
                "        open(path, 'w').write(json.dumps(forged))\n    except OSError:\n        pass\n",
                STUB["metrics.py"],
            ),
            runs_py=STUB["runs.py"],
        ),
        full="",
        score=(0, 0),
    ),
    Hostile(
        "read-hidden-files",
        override(
            "metrics.py",
            f"""
        import os as _os, time as _time
        def confusion_matrix(retrieved, relevant, collection_size):
            found = []
            for path in {SECRET_PATHS!r}:
                try:
                    open(path, "rb").read(10) if _os.path.isfile(path) else _os.listdir(path)
                    found.append(path)
                except OSError:
                    pass
            if found:
                raise RuntimeError("found: " + repr(found))
            stop = _time.monotonic() + 0.5   # a bounded walk: the answer must not depend on the machine's load
            for folder, dirs, names in _os.walk("/"):
                dirs[:] = [d for d in dirs if folder != "/" or d not in ("proc", "sys", "dev")]
                found += [_os.path.join(folder, n) for n in names if n in ("expected.json", "grading.yml")]
                if _time.monotonic() > stop:
                    break
            raise RuntimeError("found: " + repr(found))
        """,
        ),
        zero=frozenset({"confusion_matrix", "accuracy"}),
        never="found: ['",
    ),
    Hostile(
        "read-environment",
        override(
            "metrics.py",
            """
        import os as _os
        def accuracy(retrieved, relevant, collection_size):
            raise RuntimeError("environment: " + " ".join(sorted(_os.environ)))
        """,
        ),
        zero=frozenset({"accuracy"}),
        message=(
            "accuracy",
            "environment: HOME LANG MKL_NUM_THREADS OMP_NUM_THREADS OPENBLAS_NUM_THREADS PATH PYTHONHASHSEED TMPDIR",
        ),
    ),
    Hostile(
        "inspect-frames",
        override(
            "metrics.py",
            """
        import sys as _sys
        def reciprocal_rank(ranking, judgments, rel=1):
            names, frame = set(), _sys._getframe(1)
            while frame is not None:
                names |= {n for n in frame.f_locals if "expect" in n.lower()}
                names |= {n for n in frame.f_globals if "expect" in n.lower()}
                frame = frame.f_back
            raise RuntimeError("names: " + repr(sorted(names)))
        """,
        ),
        zero=frozenset({"reciprocal_rank"}),
        message=("reciprocal_rank", "names: []"),
    ),
    Hostile(
        "library-import",
        files(metrics_py=early("import ir_measures\n", S["metrics.py"])),
        zero=frozenset(METRICS),
        flag="library: lab05/metrics.py imports ir_measures",
        problem="ir_measures",
    ),
    Hostile(
        "library-hidden-import",
        override(
            "metrics.py",
            """
        import importlib as _importlib
        _reference_ap = average_precision
        def average_precision(ranking, judgments, rel=1):
            try:
                _importlib.import_module("ir_" + "measures")
            except ImportError:
                pass
            return _reference_ap(ranking, judgments, rel)
        """,
        ),
        zero=frozenset(METRICS),
        flag="library: tried to import ir_measures",
    ),
    Hostile(
        "background-processes",
        files(
            metrics_py=early(
                "import os, subprocess, time\n"
                "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
                "if os.fork() == 0:\n    os.setsid()\n"
                f"    while True:\n        time.sleep(1)  # {MARKER}\n",
                S["metrics.py"],
            )
        ),
        zero=frozenset(METRICS),  # a new process is refused: the import fails, nothing outlives it
        problem="PermissionError",
    ),
    Hostile(
        "huge-output",
        files(
            metrics_py=early(
                "import sys\nsys.stdout.write('x' * 20_000_000)\nsys.stderr.write('y' * 20_000_000)\n", S["metrics.py"]
            )
        ),
        score=(100, 100),
        flag="output: printed more than the output limit",
    ),
    Hostile(
        "fill-the-disk",
        files(
            metrics_py=early(
                "import os\nfor folder in ['/tmp', '.', os.path.expanduser('~')]:\n"
                "    try:\n        with open(os.path.join(folder, 'filler'), 'wb') as out:\n"
                "            for _ in range(4096):\n                out.write(b'0' * (1 << 20))\n"
                "    except OSError:\n        pass\n",
                S["metrics.py"],
            )
        ),
        score=(100, 100),  # write_run runs in children of its own, with a fresh scratch space
    ),
    Hostile(
        "fill-the-disk-in-runs",
        files(
            runs_py=early(
                "import os\nfor folder in ['/tmp', '.', os.path.expanduser('~')]:\n"
                "    try:\n        with open(os.path.join(folder, 'filler'), 'wb') as out:\n"
                "            for _ in range(4096):\n                out.write(b'0' * (1 << 20))\n"
                "    except OSError:\n        pass\n",
                S["runs.py"],
            )
        ),
        loses=frozenset({"write_run"}),  # its checks of refused arguments pass: it raises before writing
        message=("write_run", "No space left on device"),
        # the uid mode's scratch holds 64 MiB as the jail's does (sandbox/scratch.py), and says so
        uid={"message": ("write_run", "the scratch space is full: it holds at most 64 MiB")},
    ),
    Hostile(
        "lying-objects",
        override(
            "metrics.py",
            """
        class Liar(float):
            def __eq__(self, other):
                return True
            def __sub__(self, other):
                return 0.0
            __rsub__ = __sub__
            def __abs__(self):
                return 0.0
        class Pretender:
            def __float__(self):
                return 0.5
            def __eq__(self, other):
                return True
        class LyingList(list):
            def __eq__(self, other):
                return True
        def precision_at_k(ranking, judgments, k, rel=1):
            return Liar(0.123)
        def recall_at_k(ranking, judgments, k, rel=1):
            return Pretender()
        def largest_differences(scores_a, scores_b, n=2):
            return LyingList()
        """,
        ),
        zero=frozenset({"precision_at_k", "recall_at_k", "largest_differences"}),
        message=("precision_at_k", "a float subclass that redefines"),
    ),
    Hostile(
        "special-values",
        override(
            "metrics.py",
            """
        def reciprocal_rank(ranking, judgments, rel=1):
            return float("nan")
        def average_precision(ranking, judgments, rel=1):
            return "0.5"
        def accuracy(retrieved, relevant, collection_size):
            return True
        def recall_at_k(ranking, judgments, k, rel=1):
            return float("inf")
        def evaluate(run, qrels, measure):
            return None
        """,
        ),
        zero=frozenset({"reciprocal_rank", "average_precision", "accuracy", "recall_at_k", "evaluate"}),
        message=("evaluate", "None"),
    ),
    Hostile(
        "forged-deep-answer",
        override(
            "metrics.py",
            """
        import os as _os, sys as _sys
        def evaluate(run, qrels, measure):
            index = _sys._getframe(1).f_locals["index"]
            deep = b"[" * 900 + b"]" * 900
            _os.write(_sys.modules["__main__"]._channel,
                      b'{"i": %d, "value": {"type": "list", "items": [%s], "length": 1}}\\n' % (index, deep))
        """,
        ),
        zero=frozenset({"evaluate"}),
        flag="crash: evaluate",
    ),
    Hostile(
        "forged-short-tuple",
        override(
            "metrics.py",
            """
        import os as _os, sys as _sys
        def confusion_matrix(retrieved, relevant, collection_size):
            index = _sys._getframe(1).f_locals["index"]
            _os.write(_sys.modules["__main__"]._channel,
                      b'{"i": %d, "value": {"type": "tuple", "items": [], "length": 4}}\\n' % index)
        """,
        ),
        zero=frozenset({"confusion_matrix", "accuracy"}),
    ),
    Hostile(
        "forged-jail-pid",
        files(
            metrics_py=early(
                "import os, sys\nos.write(sys.modules['__main__']._channel, b'{\"jail_pid\": 1}\\n')\n", S["metrics.py"]
            )
        ),
        zero=frozenset(METRICS),
        flag="crash: importing lab05/metrics.py",
    ),
    Hostile(
        "channel-garbage",
        override(
            "metrics.py",
            """
        import os as _os, sys as _sys
        _reference_p = precision_at_k
        def precision_at_k(ranking, judgments, k, rel=1):
            _os.write(_sys.modules["__main__"]._channel, b"{not json at all\\n")
            return _reference_p(ranking, judgments, k, rel)
        """,
        ),
        zero=frozenset({"precision_at_k"}),
        flag="crash: precision_at_k",
    ),
    Hostile(
        "classmates-and-checkout",
        attacks.classmates_and_checkout,
        zero=frozenset({"confusion_matrix", "accuracy"}),
        never="found: [(",
    ),
    Hostile("network", attacks.network, score=(100, 100)),
    # hidden inputs kept in System V shared memory, printed by a later child: shmget is refused
    Hostile("sysv-shm", attacks.sysv_shm, score=(100, 100), output="sysv-shm: shmget refused with errno 1"),
    Hostile(
        "zombie-leader", attacks.zombie_leader, zero=frozenset({"write_run"}), problem="PermissionError"
    ),  # its fork is refused at import
    Hostile("huge-run-file", attacks.huge_run_file, zero=frozenset({"write_run"})),
    Hostile("huge-answers", attacks.huge_answers, zero=frozenset(METRICS)),
    Hostile("fence-closer", attacks.fence_closer, zero=frozenset({"accuracy"})),
    # the scratch refuses the 4097th inode (the jail's tmpfs; the uid mode's bounds, sandbox/scratch.py)
    Hostile("inode-flood", attacks.inode_flood, score=(100, 100)),
    Hostile(  # 1 GiB across files: the 64 MiB scratch refuses the rest, the import fails and says why
        "scratch-bytes",
        attacks.scratch_bytes,
        zero=frozenset(METRICS),
        problem="No space left on device",
        uid={"problem": "the scratch space is full: it holds at most 64 MiB"},
    ),
    Hostile("deep-nesting", attacks.deep_nesting, zero=frozenset(METRICS), problem="could not be imported"),
    Hostile(
        "many-entries", attacks.many_entries, full="", status="error", score=(0, 0), problem="holds 300002 entries"
    ),
    Hostile("prints", attacks.prints, score=(100, 100), output="hello from metrics"),
    Hostile(  # nothing beyond allowed_imports is in the child's world, hook or no hook; numpy still works
        "outside-imports",
        attacks.outside_imports,
        zero=frozenset({"recall_at_k"}),
        message=("recall_at_k", "imported [], found 0; numpy: 0.8 1.4 64"),
    ),
    Hostile("named-like-the-report", attacks.named_like_the_report, score=(100, 100)),
]


#: jail and uid: the batch in this process; container: the repository's container entrypoint under
#: Docker's defaults (tests/support/container_sim.py), where ``auto`` must fall back to the uid mode.
MODES = {"jail": {"isolation": "jail"}, "uid": {"isolation": "uid", "python": "/usr/bin/python3"}, "container": {}}
UID_LIKE = ("uid", "container")  # the modes where a Hostile's ``uid`` fields apply
JOBS = 2
OWNER = 4321  # who owns the folder the container's output goes into


@pytest.fixture(scope="module")
def listener():
    """A TCP listener on 127.0.0.1 that records what reaches it (the network attack's target)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    attacks.LISTENER["port"] = server.getsockname()[1]
    received: list = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                received.append(connection.recv(1 << 16))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield received
    stop.set()
    thread.join(2)
    server.close()


def grade_all(folder: Path, mode: str, hostiles: list, rubric: Path) -> dict:
    """``hostiles`` and a correct control graded in one batch in ``mode``: {id: result}."""
    built = {hostile.id: hostile.build(folder / "in" / hostile.id) for hostile in hostiles}
    subs.write(folder / "in" / "zz-control", {})
    if mode == "container":
        os.chown(folder, OWNER, OWNER)
        by_id = container_sim.grade(folder / "in", folder / "out", rubric, JOBS)
    else:
        summary = batch.grade_batch(
            [folder / "in"],
            folder / "out",
            jobs=JOBS,
            progress=False,
            rubric_path=rubric,
            lab=default_lab(),
            **MODES[mode],
        )
        by_id = {result.submission: result for result in summary.results}
    ids = {source.path: source.id for source in intake.discover([folder / "in"], lab=default_lab())}
    top = {name: path if path.parent == folder / "in" else path.parent for name, path in built.items()}
    results = {name: by_id[ids[path]] for name, path in top.items()}
    results["zz-control"] = by_id["zz-control"]
    return results


@pytest.fixture(scope="module", params=list(MODES))
def graded(request, tmp_path_factory, cranfield, listener):
    """Every hostile submission graded in one mode, on the small rubric (``subs.small_rubric``: what
    they prove is about the sandbox and the engine, not Cranfield)."""
    mode = request.param
    folder = tmp_path_factory.mktemp(f"hostile-{mode}")
    return grade_all(folder, mode, HOSTILE, subs.small_rubric(folder)), folder, None, mode


#: One hostile submission of each family, also graded on Lab 05's whole rubric (Cranfield's checks
#: too), so that the real lab stays covered: broken code, intake, time, memory, processes, the
#: harness, the results file, hidden files, libraries, the network, the scratch, the outputs.
ON_LAB05 = (
    "syntax-error",
    "zip-symlink",
    "slow-function",
    "memory-bomb",
    "fork-bomb",
    "patch-the-harness",
    "forge-results",
    "read-hidden-files",
    "library-import",
    "network",
    "scratch-bytes",
    "huge-answers",
)
LAB05_HOSTILE = [hostile for hostile in HOSTILE if hostile.id in ON_LAB05]


@pytest.fixture(scope="module", params=["lab05-jail"])
def graded_lab05(request, tmp_path_factory, cranfield, listener):
    """``ON_LAB05`` graded in the jail on Lab 05's whole rubric (with the tests' short limits)."""
    folder = tmp_path_factory.mktemp("hostile-lab05")
    return grade_all(folder, "jail", LAB05_HOSTILE, subs.test_rubric(folder)), folder, None, "jail"


@pytest.mark.parametrize("mode", list(MODES))
def test_orphans_do_not_cost_the_next_submission(mode, tmp_path, cranfield):
    """After a submission that tries to leave 200 orphaned zombies behind (its forks are refused now,
    as the fork bomb's are), do the next submissions on the same worker get their 100?"""
    attacks.orphans(tmp_path / "in" / "a-orphans")
    bomb = next(hostile for hostile in HOSTILE if hostile.id == "fork-bomb")
    bomb.build(tmp_path / "in" / "b-fork-bomb")
    subs.write(tmp_path / "in" / "c-correct", {})
    rubric = subs.small_rubric(tmp_path)
    if mode == "container":
        results = container_sim.grade(tmp_path / "in", tmp_path / "out", rubric, jobs=1)
    else:
        summary = batch.grade_batch(
            [tmp_path / "in"],
            tmp_path / "out",
            jobs=1,
            progress=False,
            rubric_path=rubric,
            lab=default_lab(),
            **MODES[mode],
        )
        results = {result.submission: result for result in summary.results}
    assert results["a-orphans"].score == 100
    assert results["b-fork-bomb"].score == 100  # its forks are refused: it gains and harms nothing
    assert results["c-correct"].score == 100


def sandbox_uids(results: dict) -> set[int]:
    """The uids the batch's children ran as (each result's instructor log names its own)."""
    found = {re.search(r" as uid (\d+),", result.instructor_log) for result in results.values()}
    return {int(match.group(1)) for match in found if match}


def test_suite_is_large_enough():
    """Are there at least 25 hostile or broken submissions, each with its expected outcome?"""
    assert len(HOSTILE) >= 25 and len({h.id for h in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize("hostile", HOSTILE, ids=[h.id for h in HOSTILE])
def test_hostile_submission_gets_its_outcome(graded, hostile):
    """Does the submission get a result, lose exactly what it should, with a clear message, in every
    isolation mode?"""
    results, _, _, mode = graded
    assert_outcome(results[hostile.id], hostile, mode)


@pytest.mark.parametrize("hostile", LAB05_HOSTILE, ids=[h.id for h in LAB05_HOSTILE])
def test_hostile_submission_gets_its_outcome_on_lab05(graded_lab05, hostile):
    """Graded on Lab 05's whole rubric (Cranfield's checks too), does one submission of each family
    get the same outcome as on the small rubric?"""
    results, _, _, mode = graded_lab05
    assert_outcome(results[hostile.id], hostile, mode)


def test_every_family_is_graded_on_lab05():
    """Is every submission ``ON_LAB05`` names one of the hostile submissions (a misspelt id would
    leave its family off Lab 05)?"""
    assert len(ON_LAB05) >= 10 and {hostile.id for hostile in LAB05_HOSTILE} == set(ON_LAB05)


def assert_outcome(result, hostile: Hostile, mode: str) -> None:
    """``result`` is what ``hostile`` must get in ``mode``."""
    if mode in UID_LIKE:
        hostile = replace(hostile, **hostile.uid)
    assert result.isolation == MODES.get(mode, {}).get("isolation", "uid")
    scores = subs.function_scores(result)
    assert result.status == hostile.status, result.problems
    for function in hostile.zero:
        assert scores[function][0] == 0, f"{function} earned {scores[function]}"
    for function in hostile.loses:
        assert scores[function][0] < scores[function][1], f"{function}: {scores[function]}"
    if hostile.either:
        outcomes = {
            "none" if scores[f][0] == 0 else "all" if scores[f][0] == scores[f][1] else "some" for f in hostile.either
        }
        assert outcomes in ({"none"}, {"all"}), {f: scores[f] for f in hostile.either}
    if hostile.full == "rest":
        for function, (score, possible) in scores.items():
            if function not in hostile.zero | hostile.loses | hostile.either:
                assert score == possible, f"{function} lost points: {score}/{possible}"
    if hostile.problem:
        assert hostile.problem in "\n".join(result.problems), result.problems
    if hostile.flag:
        assert hostile.flag in "\n".join(map(str, result.flags)), result.flags
    if hostile.message:
        function, text = hostile.message
        messages = [case.message for check in result.checks if check.function == function for case in check.cases]
        assert any(text in message for message in messages), messages[:3]
    if hostile.never:
        leaked = [case.message for check in result.checks for case in check.cases if hostile.never in case.message]
        assert leaked == []
    if hostile.score:
        assert hostile.score[0] <= result.score <= hostile.score[1], result.score
    if hostile.output:
        assert hostile.output in result.output, result.output[:200]


def test_threads_that_busy_the_cpus_are_charged_for_them(graded):
    """A function whose calls mostly wait for a CPU that 15 threads of its own keep busy: is it
    charged their CPU time, so its time budget runs out after a few calls (not the machine's
    load, which would let it run on for the submission's whole time)?"""
    results, _, _, _ = graded
    cases = [
        case
        for check in results["thread-spinners"].checks
        if check.function == "reciprocal_rank"
        for case in check.cases
    ]
    ran = [case for case in cases if case.status != "not-run"]
    assert len(ran) <= 40 < len(cases), len(ran)


def test_control_submission_in_the_same_batch_is_untouched(graded):
    """Does a correct submission graded beside all of them still get full marks?"""
    results, _, _, _ = graded
    assert results["zz-control"].score == 100


def test_nothing_forged_survives(graded):
    """Are the batch's outputs only the grader's files, and no forged results.json anywhere?"""
    results, folder, _, _ = graded
    out = folder / "out"
    written = sorted(str(path.relative_to(out)) for path in out.rglob("*") if path.is_file())
    assert written == sorted(
        ["class.json", "grades.csv", "index.html"]
        + [
            f"submissions/{r.submission}/{name}"
            for r in {r.submission: r for r in results.values()}.values()
            for name in ("feedback.html", "feedback.md", "grade.json", "instructor.html", "results.json")
        ]
    )
    assert results["forge-results"].score == 0
    for path in [
        "/autograder/results/results.json",
        "/tmp/results.json",
        str(paths.ROOT / "forged-results.json"),
        "/tmp/lab05-absolute.py",
        str(folder / "escaped.py"),
        str(folder.parent / "escaped.py"),
    ]:
        assert not os.path.exists(path), path


def test_no_process_outlives_its_submission(graded):
    """After the batch, does no thread of the sandbox's uids run, whatever its state (a zombie
    leader with a live thread included), and no process the submissions started?"""
    from autograder.sandbox import cleanup

    results = graded[0]
    live = {uid: cleanup.live_tasks(uid) for uid in sandbox_uids(results)}
    assert live and {uid: tasks for uid, tasks in live.items() if tasks} == {}
    leftovers = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                command = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                owner = entry.stat().st_uid
            except OSError:
                continue
            # a submission's process is never root's: root's are the machine's other work (a shell's `sleep 300`)
            if owner != 0 and (MARKER in command or command.startswith("sleep 300")):
                leftovers.append(command[:100])
    assert leftovers == []


def _graders_folder(top: Path) -> bool:
    """A grader's temporary folder (``tempdirs``) of this test run, or one left by a grader whose
    process is gone; not the live folders of other work on the machine (other graders, benchmarks)."""
    from autograder import tempdirs

    pid = top.name.removeprefix(tempdirs.PREFIX)
    if not top.name.startswith(tempdirs.PREFIX) or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return int(pid) == os.getpid()


def test_disk_was_not_filled(graded):
    """Did the disk-filling submissions leave nothing behind: no file of a sandbox uid in the
    temporary folder, and under 100 MiB in the grader's own temporary folders? (Free space is no
    measure: other work on the machine changes it; so do other processes' folders.)"""
    base = Path(tempfile.gettempdir())
    sandbox = sandbox_uids(graded[0])
    theirs, kept = [], 0
    for top in base.iterdir():
        walked = os.walk(top) if _graders_folder(top) else [(str(base), [], [top.name])]
        for folder, names, files in walked:
            for name in [*names, *files]:
                try:
                    info = os.lstat(os.path.join(folder, name))
                except FileNotFoundError:  # removed meanwhile by its own (other) process
                    continue
                if info.st_uid in sandbox:
                    theirs.append(os.path.join(folder, name))
                if _graders_folder(top) and stat.S_ISREG(info.st_mode):
                    kept += info.st_blocks * 512
    assert theirs == [] and kept < 100 << 20, (theirs[:5], kept)


def test_the_listener_heard_nothing(graded, listener):
    """Did nothing a submission sent reach a listener on the grader's machine?"""
    assert listener == []


def test_outputs_stay_small_whatever_the_answers(graded):
    """With answers just under the channel's limit in every function, do the submission's outputs
    stay small (the grader keeps a bounded view of each answer)?"""
    results, folder, _, _ = graded
    path = folder / "out" / "submissions" / results["huge-answers"].submission
    sizes = {
        name: (path / name).stat().st_size for name in ("feedback.html", "feedback.md", "results.json", "grade.json")
    }
    assert all(size < 4 << 20 for size in sizes.values()), sizes


def test_student_text_cannot_close_a_fence(graded):
    """Does an exception message holding a fence stay inside feedback.md's code block?"""
    results, folder, _, _ = graded
    markdown = (folder / "out" / "submissions" / results["fence-closer"].submission / "feedback.md").read_text()
    block = markdown[markdown.index("accuracy: the notes' examples") :]
    opening = block[block.index("\n`") + 1 :].split("\n", 1)[0]
    assert opening.startswith("````") and "```\n# Score: 100 / 100" in block


def test_a_submission_named_like_the_report_does_not_replace_it(graded):
    """Is the class report still the report when a submission is called index.html?"""
    results, folder, _, _ = graded
    assert results["named-like-the-report"].submission == "index.html"
    assert "class report" in (folder / "out" / "index.html").read_text()
