"""The uid mode's scratch bounded as the jail's /scratch is (``sandbox/scratch.py``): bytes
(``Limits.tmp_mb``) and files and folders (``Limits.tmp_inodes``). Real children try to pass each
bound; each is refused with a message that says why, nothing is left on disk, and the next child
and the next run grade normally."""

from __future__ import annotations

import ast
import os
import pickle
import stat
from pathlib import Path

import pytest

from autograder import paths, tempdirs
from autograder.sandbox import cleanup, isolation, leases, runner, scratch
from autograder.sandbox.outcomes import OutcomeStatus
from autograder.sandbox.settings import Call, Limits, Mode
from tests.support.sandbox_uid import as_uid

pytestmark = [pytest.mark.sandbox]

if os.getuid() != 0:  # pragma: no cover - CI runs the sandbox tests as root
    pytest.fail("the uid mode's tests run children as a sandbox uid: run them as root (CI does)", pytrace=False)

#: Small bounds, so that passing them is quick: 8 MiB, 256 files and folders.
LIMITS = Limits(call_seconds=60, submission_seconds=120, memory_mb=1024, output_kb=8, tmp_mb=8, tmp_inodes=256)

#: Each attack writes until it is refused (the error ends the call), or says it never was.
ATTACKS = r"""
import os


def _until_refused(write, most=1 << 20):
    for done in range(most):
        write(done)
    return "never refused"


def _file(name, size):
    with open(name, "wb") as out:
        for _ in range(size >> 20):
            out.write(b"x" * (1 << 20))


def many_small_files():
    return _until_refused(lambda n: open(f"f{n}", "w").close())


def one_big_file():
    with open("big", "wb") as out:
        return _until_refused(lambda n: out.write(b"x" * (1 << 20)) and out.flush(), 1024)


def files_in_nested_folders():
    def write(n):
        folder = os.path.join(*[f"d{n // 8}"] + [f"n{level}" for level in range(n % 8)])
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, f"f{n}"), "w").close()

    return _until_refused(write)


def bytes_across_many_files():
    return _until_refused(lambda n: _file(f"part{n}", 1 << 20), 1024)


def written_twice():
    for attempt in range(2):  # a full scratch, emptied by truncating its file, then filled again
        try:
            _file("twice", 1 << 30)
        except OSError:
            if attempt:
                raise
    return "never refused"


def sparse_files_written_through_mmap(size=4 << 20, count=10):
    # the red team's: files made large and sparse, then filled through mmap, which makes no inotify
    # event and meets no file size limit; says how many MiB it wrote
    import mmap
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    names = []
    for n in range(count):
        descriptor = os.open(f"sparse{n}", os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(descriptor, size)
        os.close(descriptor)
        names.append(f"sparse{n}")
    for name in names:
        descriptor = os.open(name, os.O_RDWR)
        mapped = mmap.mmap(descriptor, size)
        os.close(descriptor)
        for offset in range(0, size, 1 << 20):
            mapped[offset : offset + (1 << 20)] = b"x" * (1 << 20)
        mapped.flush()
        mapped.close()
    return sum(os.stat(name).st_blocks * 512 for name in names) >> 20


def two_sparse_files_then_wait():
    # two files of 6 MiB (each under the file size limit; the bound is passed only once both are
    # made, so no refusal comes first), filled through mmap; then it waits, as a child that goes on
    # would, for the parent's next look (it answers if nothing stops it)
    import time

    written = sparse_files_written_through_mmap(6 << 20, 2)
    for _ in range(1200):
        time.sleep(0.05)
    return written


def honest_temporary_file():
    import tempfile

    with tempfile.TemporaryFile() as temporary:
        temporary.write(b"x" * (3 << 20))
        temporary.seek(0)
        return [len(temporary.read()), os.listdir(".")]
"""

CASES = {
    "many-small-files": ("many_small_files", "256 files and folders"),
    "one-big-file": ("one_big_file", "8 MiB"),
    "files-in-nested-folders": ("files_in_nested_folders", "256 files and folders"),
    "bytes-across-many-files": ("bytes_across_many_files", "8 MiB"),
    # the parent refused it while full; truncated, it holds little: the message comes from the
    # parent's note (or, had it not seen it full yet, from the harness's own finding once full again)
    "written-twice": ("written_twice", "8 MiB"),
}


@pytest.fixture(scope="module")
def uid() -> int:
    return leases.lease(1, isolation.DEFAULT_UID)[0]


def run(uid: int, functions: list[str], mode: Mode = Mode.UID) -> runner.SandboxResult:
    """Run ``functions`` of the attacks, one call each, in one graded file's children."""
    with tempdirs.folder("lab05-scratch-") as temporary:
        folder = Path(temporary)
        package = folder / "lab" / "lab05"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "metrics.py").write_text(ATTACKS)
        (package / "runs.py").write_text("")
        os.chmod(folder, 0o711)
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        enclosure = isolation.jail_isolation("/usr/bin/python3", (uid,), mode=mode)
        calls = [Call(function, "metrics.py") for function in functions]

        def payload(index: int) -> bytes:
            call = {"fn": functions[index], "file": "metrics.py", "args": []}
            return index.to_bytes(4, "big") + pickle.dumps(call, protocol=4)

        return runner.run(folder / "lab", calls, payload, LIMITS, enclosure)


def answer(outcome) -> list:
    """A call's answer as plain values (the child encodes them)."""
    assert outcome is not None and outcome.status == OutcomeStatus.VALUE, outcome
    return [item.get("value", [part.get("value") for part in item.get("items", [])]) for item in outcome.value["items"]]


def refusal(outcome) -> str:
    """The message of the OSError that ended a call (it never answered "never refused")."""
    assert outcome is not None and outcome.status == OutcomeStatus.ERROR, outcome
    assert "OSError" in outcome.error["mro"], outcome.error
    return outcome.error["message"]


def leftovers(uid: int) -> list[str]:
    """Files of ``uid`` anywhere in the grader's temporary folders and the shared ones."""
    found = []
    for top in (tempdirs.root(), *cleanup.SHARED_FOLDERS):
        for folder, names, files in os.walk(top):
            for name in names + files:
                try:
                    if os.lstat(os.path.join(folder, name)).st_uid == uid:
                        found.append(os.path.join(folder, name))
                except OSError:
                    pass
    return found


@pytest.mark.parametrize("case", list(CASES))
def test_a_child_that_passes_a_bound_of_its_scratch_is_refused(uid, case):
    """Is a child that tries to write 1 GiB or 1,048,576 files to its scratch refused (an OSError
    whose message names the bound passed), with nothing left on disk, and does the next submission
    keep its honest temporary file?"""
    function, bound = CASES[case]
    message = refusal(run(uid, [function]).outcomes[0])
    assert f"the scratch space is full: it holds at most {bound}" in message, message
    assert leftovers(uid) == []
    assert answer(run(uid, ["honest_temporary_file"]).outcomes[0]) == [3 << 20, []]  # the next submission


def test_honest_code_keeps_its_temporary_file_in_the_jail_too(uid):
    """Does the same honest temporary file work in the jail (whose /scratch is a tmpfs of the same
    size), so the bound is the same in both modes?"""
    result = run(uid, ["honest_temporary_file"], Mode.JAIL)
    assert answer(result.outcomes[0]) == [3 << 20, []]


@pytest.mark.parametrize("case", ["many-small-files", "bytes-across-many-files"])
def test_the_jail_refuses_the_same_attacks(uid, case):
    """Does the jail refuse the same attacks (its tmpfs: No space left on device), so the uid mode
    now behaves as it does?"""
    result = run(uid, [CASES[case][0]], Mode.JAIL)
    assert "No space left on device" in refusal(result.outcomes[0])


#: The red team's attack on the scratch through mmap, 40 or 12 MiB into an 8 MiB bound: (id, function).
SPARSE = [
    ("ten-sparse-files", "sparse_files_written_through_mmap"),
    ("two-sparse-files-then-wait", "two_sparse_files_then_wait"),
]


@pytest.mark.parametrize("mode", [Mode.UID, Mode.JAIL], ids=["uid", "jail"])
@pytest.mark.parametrize("function", [case[1] for case in SPARSE], ids=[case[0] for case in SPARSE])
def test_is_a_scratch_filled_through_mmap_into_sparse_files_stopped_at_its_bound(uid, function, mode):
    """Is a child that makes sparse files and fills them through mmap (40 or 12 MiB, with an 8 MiB
    bound) stopped, refused or killed, its call failing (the uid mode: saying the scratch is full),
    with nothing left on disk, and does the next child keep its honest temporary file?"""
    outcome = run(uid, [function], mode).outcomes[0]
    assert outcome is not None and outcome.status in (OutcomeStatus.ERROR, OutcomeStatus.CRASH), outcome
    if mode == Mode.UID:
        told = outcome.error["message"] if outcome.status == OutcomeStatus.ERROR else outcome.detail
        assert "the scratch space is full: it holds at most 8 MiB" in told, outcome
    assert leftovers(uid) == []
    assert answer(run(uid, ["honest_temporary_file"], mode).outcomes[0]) == [3 << 20, []]


def test_the_harness_and_the_parent_name_the_same_note():
    """Does the harness read the note under the name the parent writes it (``scratch.FULL``)? (The
    harness runs as a script of the standard library only: it is read, not imported.)"""
    tree = ast.parse((paths.PACKAGE / "sandbox" / "child" / "harness.py").read_text(encoding="utf-8"))
    names = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert names["SCRATCH_FULL"] == scratch.FULL


def _hold_deleted(folder: Path, mib: int):
    """As the uid: a file of ``mib`` MiB in ``folder``, deleted while it stays open."""

    def make() -> object:
        path = folder / "held"
        out = open(path, "wb")  # noqa: SIM115 - it stays open while the helper lives
        os.unlink(path)
        out.write(b"x" * (mib << 20))
        out.flush()
        _HELD.append(out)
        return mib

    return make


_HELD: list = []

#: (MiB held open after deletion, files made) -> whether the 8 MiB, 256-entry scratch is full
DELETED = [("under-the-bound", 2, False), ("over-the-bound", 12, True)]


@pytest.mark.parametrize(("mib", "full"), [case[1:] for case in DELETED], ids=[case[0] for case in DELETED])
def test_bytes_in_deleted_files_still_held_open_count(uid, mib, full):
    """A file deleted while open still takes its blocks: is the scratch found full when such files
    pass its bytes (no folder names them), and not when they do not?"""
    with tempdirs.folder("lab05-scratch-") as temporary:
        os.chmod(temporary, 0o711)
        work = Path(temporary) / "work"
        work.mkdir()
        watch = scratch.Watch(work, uid, LIMITS.tmp_mb << 20, LIMITS.tmp_inodes)
        try:
            as_uid(uid, _hold_deleted(work, mib), stay=True)
            assert os.listdir(work) == []
            found = watch.check(now=float("inf"))
            assert (found is not None) == full, found
            if full:
                assert found == scratch.full_message("8 MiB") and (work / scratch.FULL).is_file()
        finally:
            watch.close()
            cleanup.sweep(uid, work)


def test_a_full_scratch_follows_no_link_the_uid_made(uid):
    """The uid names its note ``FULL`` as a link to a file of root's and puts a link to a folder of
    root's among its folders: once the scratch is found full, are that file and that folder as
    they were (root changes nothing through a link), and the note root's own file?"""
    with tempdirs.folder("lab05-scratch-") as temporary:
        os.chmod(temporary, 0o711)
        precious, folder = Path(temporary) / "precious", Path(temporary) / "roots"
        precious.write_text("root's")
        folder.mkdir(mode=0o755)
        work = Path(temporary) / "work"
        work.mkdir()
        watch = scratch.Watch(work, uid, LIMITS.tmp_mb << 20, LIMITS.tmp_inodes)

        def links() -> object:
            os.symlink(precious, work / scratch.FULL)
            os.symlink(folder, work / "a-folder")
            os.mkdir(work / "real")
            return sorted(os.listdir(work))

        try:
            assert as_uid(uid, links) == [scratch.FULL, "a-folder", "real"]
            watch.refuse("8 MiB")
            note = os.lstat(work / scratch.FULL)
            assert precious.read_text() == "root's" and (folder.stat().st_mode & 0o7777, folder.stat().st_uid) == (
                0o755,
                0,
            )
            assert note.st_uid == 0 and stat.S_ISREG(note.st_mode)
            assert (work / "real").stat().st_mode & 0o7777 == 0o1750
        finally:
            watch.close()
            cleanup.sweep(uid, work)


def test_a_full_scratch_is_looked_at_once_a_full_tick(uid, monkeypatch):
    """Once the scratch is full (nothing can be added to it), is it measured only every
    ``FULL_TICK``, not at every change or ``TICK`` (a full scratch of 4,096 entries took 15 ms a
    look, a tenth of the parent's time under the inode flood), and still measured then?"""
    with tempdirs.folder("lab05-scratch-") as temporary:
        os.chmod(temporary, 0o711)
        work = Path(temporary) / "work"
        work.mkdir()
        watch = scratch.Watch(work, uid, 8 << 20, 4)
        try:
            for n in range(4):
                (work / f"f{n}").write_bytes(b"")
            assert watch.check(now=0.0) == scratch.full_message("4 files and folders")
            looks = []
            measure = watch.measure
            monkeypatch.setattr(watch, "measure", lambda deleted=True: looks.append(deleted) or measure(deleted))
            (work / "f0").write_bytes(b"x")  # a change wakes it (inotify): full, so not measured
            for now in (scratch.TICK, 2 * scratch.TICK, scratch.FULL_TICK / 2):
                assert watch.check(now=now) is None
            assert looks == []
            assert watch.check(now=scratch.FULL_TICK) is None and looks == [True]
        finally:
            watch.close()
            cleanup.sweep(uid, work)


class _NoInotify:
    """The C library as a machine that gives no more inotify instances: the parent looks only
    every ``TICK`` (and, when an answer arrives, once more)."""

    def __getattr__(self, name: str) -> object:
        return getattr(scratch._libc, name)

    @staticmethod
    def inotify_init1(flags: int) -> int:
        return -1


def test_is_a_scratch_filled_past_its_bound_between_two_looks_looked_at_when_an_answer_arrives(uid):
    """Once the scratch is full it is measured every ``FULL_TICK``; are sparse files made and filled
    meanwhile (through mmap: no refusal, no event) still found the moment an answer arrives (a
    ``final`` look), so that a child answering at once is killed, not answered?"""
    with tempdirs.folder("lab05-scratch-") as temporary:
        os.chmod(temporary, 0o711)
        work = Path(temporary) / "work"
        work.mkdir()
        watch = scratch.Watch(work, uid, 8 << 20, 256)
        try:
            (work / "a").write_bytes(b"")
            os.truncate(work / "a", 8 << 20)
            assert watch.check(now=0.0) == scratch.full_message("8 MiB") and not watch.overflow
            for name in ("b", "c"):  # made after the look: 16 MiB more, past the bound's OVERFLOW
                (work / name).write_bytes(b"")
                os.truncate(work / name, 8 << 20)
            assert watch.check(now=scratch.TICK) is None and not watch.overflow  # no look before FULL_TICK
            assert watch.check(now=scratch.TICK, final=True) is None and watch.overflow
            assert "3 files and folders, 24.0 MiB" in watch.found
        finally:
            watch.close()
            cleanup.sweep(uid, work)


def test_is_a_child_that_fills_its_scratch_through_mmap_and_answers_at_once_killed(uid, monkeypatch):
    """With no look between the fill and the answer (no inotify on this machine, a ``TICK`` longer
    than the call), is the child that fills its scratch through mmap (40 MiB into 8) and answers at
    once killed, its call saying the scratch is full, rather than answered (the jail's full tmpfs
    ends it too)? Before the final look its answer, 40, was kept when it came before the next tick."""
    monkeypatch.setattr(scratch, "_libc", _NoInotify())
    monkeypatch.setattr(scratch, "TICK", 3600.0)
    monkeypatch.setattr(scratch, "FULL_TICK", 3600.0)
    outcome = run(uid, ["sparse_files_written_through_mmap"]).outcomes[0]
    assert outcome is not None and outcome.status == OutcomeStatus.CRASH, outcome
    assert "the scratch space is full: it holds at most 8 MiB" in outcome.detail, outcome
    assert leftovers(uid) == []


#: What happens between a measure and an answer's ``final`` look, and whether that look measures
#: again: (id, what is done, measured again).
FINAL_LOOKS = [
    ("nothing-changed", "nothing", False),
    ("a-file-made", "make", True),
    ("a-file-grown", "grow", True),
    ("no-inotify", "blind", True),
]


@pytest.mark.parametrize(("done", "again"), [case[1:] for case in FINAL_LOOKS], ids=[case[0] for case in FINAL_LOOKS])
def test_does_a_final_look_measure_again_only_when_something_may_have_changed(uid, monkeypatch, done, again):
    """A flood leaves 4,096 files, and every answer after it took a final look: measuring them all
    again (15-30 ms each) made most of its grading time, which then depended on the machine's load.
    Does an answer's final look measure only when inotify saw a change since the last measure, or
    when it cannot see one (no inotify), and so still find a file made or grown just before?"""
    if done == "blind":
        monkeypatch.setattr(scratch, "_libc", _NoInotify())
    with tempdirs.folder("lab05-scratch-") as temporary:
        os.chmod(temporary, 0o711)
        work = Path(temporary) / "work"
        work.mkdir()
        (work / "kept").write_bytes(b"x" * 4096)
        watch = scratch.Watch(work, uid, 8 << 20, 256)
        measured: list[bool] = []
        measure = watch.measure
        monkeypatch.setattr(watch, "measure", lambda deleted=True: measured.append(deleted) or measure(deleted))
        try:
            assert watch.check(now=0.0) is None and len(measured) == 1
            if done == "make":
                (work / "made").write_bytes(b"x")
            elif done == "grow":
                with open(work / "kept", "ab") as out:
                    out.write(b"x" * 8192)
            assert watch.check(now=scratch.TICK / 2, final=True) is None
            assert len(measured) == 1 + again, measured
        finally:
            watch.close()
            cleanup.sweep(uid, work)
