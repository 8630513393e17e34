"""Reading a submission's zip: a zip too large to search says so and what to do, whatever its end
record claims; a zip within the limits is read."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import intake
from autograder.lab import spec
from autograder.labkit import load
from autograder.labkit.load import default as default_lab
from tests.support import subs


def _zip(path: Path, filler: int, name_length: int = 0) -> Path:
    """``filler`` entries first (a zipped virtual environment), then the solutions' two graded files."""
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(filler):
            archive.writestr(f"venv/lib/f{number}".ljust(name_length, "x"), b"")
        for name, text in subs.SOLUTION.items():
            archive.writestr(f"lab05/{name}", text)
    return path


def _understate(path: Path, count: int) -> Path:
    """The end record's entry counts set to ``count`` (as tools without ZIP64 write 65,536 + count)."""
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = count.to_bytes(2, "little") * 2
    path.write_bytes(bytes(data))
    return path


@dataclass(frozen=True)
class ZipCase:
    id: str
    make: object  # path -> the zip
    problem: str  # "" when both files are read


TOO_MANY = "more than the 10000 the grader reads, so it was not searched for your files: zip only lab05/metrics.py"

CASES = [
    ZipCase("virtualenv-first", lambda p: _zip(p, 12000), f"submission.zip holds 12002 entries, {TOO_MANY}"),
    ZipCase(
        "end-record-understates",
        lambda p: _understate(_zip(p, 12000), 2),
        f"submission.zip holds 12002 entries, {TOO_MANY}",
    ),
    ZipCase(
        "huge-directory",
        lambda p: _understate(_zip(p, 1000, name_length=10500), 2),
        "submission.zip's list of entries takes 10 MiB: more entries than the 10000 the grader reads, so it was "
        "not searched for your files",
    ),
    ZipCase("at-the-limit", lambda p: _zip(p, 9998), ""),
    ZipCase("small", lambda p: _zip(p, 3), ""),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_large_zip_says_it_has_too_many_entries(tmp_path, case):
    """Does a zip past the entry limit say so and what to do (not "no metrics.py found"), and is a zip
    within it read?"""
    staged = intake.read(intake.Source("s", case.make(tmp_path / "submission.zip")), lab=default_lab())
    if not case.problem:
        assert staged.problems == []
        assert staged.files == {name: text.encode() for name, text in subs.SOLUTION.items()}
        return
    assert staged.files == {}
    assert staged.problems[0].startswith(case.problem), staged.problems
    assert "submit the two files themselves" in staged.problems[0]
    assert not any("found in the submission" in problem for problem in staged.problems), staged.problems


def test_directory_figures_are_read_from_the_end_record(tmp_path):
    """Does zip_directory read the entry count and the directory's size that zipfile finds?"""
    path = _zip(tmp_path / "submission.zip", 5)
    with zipfile.ZipFile(path) as archive:
        entries = archive.infolist()
    count, length = intake.zip_directory(path)
    assert count == len(entries) == 7
    assert length == sum(46 + len(entry.filename) + len(entry.extra) + len(entry.comment) for entry in entries)


HANDOUT = {name: paths.handout_file(name).read_bytes() for name in spec.GRADED_FILES}


def _folder(root: Path, files: dict) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


@dataclass(frozen=True)
class NamedCase:
    id: str
    files: dict  # path in the submission -> content
    said: tuple  # words the problem must hold ("" : no problem at all)


MISNAMED = [
    NamedCase(
        "capitalised",
        {"lab05/Metrics.py": subs.SOLUTION["metrics.py"], "lab05/runs.py": subs.SOLUTION["runs.py"]},
        ("no metrics.py found", "Received: lab05/Metrics.py, lab05/runs.py.", "lab05/Metrics.py looks like metrics.py"),
    ),
    NamedCase(
        "browser-copy-suffix",
        {"metrics (1).py": subs.SOLUTION["metrics.py"], "runs.py": subs.SOLUTION["runs.py"]},
        ("metrics (1).py looks like metrics.py", "rename it to metrics.py"),
    ),
    NamedCase(
        "saved-as-text",
        {"metrics.py.txt": subs.SOLUTION["metrics.py"], "runs.py": subs.SOLUTION["runs.py"]},
        ("metrics.py.txt looks like metrics.py",),
    ),
    NamedCase(
        "typo",
        {"lab05/metric.py": subs.SOLUTION["metrics.py"], "lab05/runs.py": subs.SOLUTION["runs.py"]},
        ("lab05/metric.py looks like metrics.py",),
    ),
    NamedCase(
        "nothing-alike",
        {"notes.txt": "my notes", "runs.py": subs.SOLUTION["runs.py"]},
        ("no metrics.py found", "Received: notes.txt, runs.py."),
    ),
    NamedCase(
        "both-right", {"lab05/metrics.py": subs.SOLUTION["metrics.py"], "lab05/runs.py": subs.SOLUTION["runs.py"]}, ()
    ),
]


@pytest.mark.parametrize("case", MISNAMED, ids=[case.id for case in MISNAMED])
@pytest.mark.parametrize("packed", ["folder", "zip"])
def test_does_a_misnamed_file_get_what_was_received_and_the_near_match(tmp_path, case, packed):
    """Given the graded files under other names, is the student told what the grader received and
    which received file looks like the one it wants (in a folder and in a zip alike)?"""
    root = _folder(tmp_path / "submission", case.files)
    if packed == "zip":
        target = tmp_path / "submission.zip"
        with zipfile.ZipFile(target, "w") as archive:
            for name, data in case.files.items():
                archive.writestr(name, data)
        root = target
    staged = intake.read(intake.Source("s", root), lab=default_lab())
    said = " ".join(staged.problems)
    for words in case.said:
        assert words in said, f"{case.id}: {words!r} not in {said!r}"
    if not case.said:
        assert not staged.problems


UNCHANGED = [
    NamedCase("both-unchanged", HANDOUT, ("metrics.py and runs.py are the handout's own files, unchanged",)),
    NamedCase(
        "saved-with-crlf",
        {name: data.replace(b"\n", b"\r\n") + b"\n\n" for name, data in HANDOUT.items()},
        ("the handout's own files, unchanged",),
    ),
    NamedCase("one-done", {**HANDOUT, "metrics.py": subs.SOLUTION["metrics.py"].encode()}, ()),
    NamedCase("one-line-changed", {**HANDOUT, "runs.py": HANDOUT["runs.py"] + b"x = 1\n"}, ()),
]


@pytest.mark.parametrize("case", UNCHANGED, ids=[case.id for case in UNCHANGED])
def test_is_an_untouched_handout_recognised_and_named(tmp_path, case):
    """Is an upload of the handout's own stubs named as such (line ends aside), and is a
    submission with any work of its own not?"""
    staged = intake.read(intake.Source("s", _folder(tmp_path / "lab05", case.files)), lab=default_lab())
    said = " ".join(staged.problems)
    for words in case.said:
        assert words in said
    assert bool(case.said) == any("handout" in problem for problem in staged.problems)
    assert bool(case.said) == any("handout" in note for note in staged.notes)


LAB06 = paths.ROOT / "tests" / "fixtures" / "lab06"

#: id -> (how to load the lab, the files of a submission (in folder "s"), the graded files read,
#: the start of the problem said, the files of the package written for the child)
LAB_SUBMISSIONS = {
    "lab06 reads classify.py": (
        lambda: load.load(LAB06),
        {"lab06/classify.py": "def f1_score(p, a):\n    return 1.0\n", "metrics.py": "x = 1\n"},
        {"classify.py"},
        "",
        ["__init__.py", "classify.py"],
    ),
    "lab05 asks for its own files": (
        load.default,
        {"lab06/classify.py": "def f1_score(p, a):\n    return 1.0\n"},
        set(),
        "no metrics.py or runs.py found in the submission: submit lab05/metrics.py and lab05/runs.py",
        ["__init__.py", "data.py", "retrieval.py"],
    ),
}


@pytest.mark.parametrize("case_id", LAB_SUBMISSIONS)
def test_a_submission_is_read_for_the_lab_it_is_given(case_id, tmp_path):
    """Are a submission's graded files, the problem said of the missing ones and the package
    written for the child those of the lab given, whichever lab the environment chose?"""
    loader, files, read, problem, package = LAB_SUBMISSIONS[case_id]
    lab = loader()
    _folder(tmp_path / "in" / "s", files)
    (source,) = intake.discover([tmp_path / "in" / "s"], lab)
    staged = intake.read(source, lab)
    assert set(staged.files) == read
    assert (staged.problems[0] if staged.problems else "").startswith(problem)
    written = intake.write_package(staged, tmp_path / "child", lab) / lab.package
    assert sorted(path.name for path in written.iterdir()) == package
