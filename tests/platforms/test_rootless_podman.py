"""The container route rootless, for real (docs/CONTAINER.md, docs/SCALING.md): Debian's podman
run by an unprivileged account with 65,536 subordinate uids, on an image laid out as the
Dockerfile's but made from this host's files (tests/support/rootless_podman.py: the suite reaches
no image registry). A small class graded in it must give the grades.csv of a batch on the host,
byte for byte, with the sandbox uids inside the container's uid map, and a submission trying to
escape must still find nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder import paths
from autograder.lab.solution import load_lab05
from autograder.reports import output_paths
from tests.support import rootless_podman, subs

pytestmark = [pytest.mark.container, pytest.mark.sandbox, pytest.mark.slow]

SEED = "rootless"
#: What a submission tries to read inside the container (the image's layout, docs/CONTAINER.md).
TARGETS = (
    "/lab05/repo/grading.yml",
    "/lab05/repo/solutions",
    "/lab05/repo/lab/data/expected.json",
    "/lab05/venv/pyvenv.cfg",
    "/lab05/cache",
    "/class",
    "/class/ada-correct/lab05/metrics.py",
    "/out",
    "/rubric/grading.yml",
    "/cranfield/cranqrel",
)
ESCAPE = f"""
import os as _os, socket as _socket
def confusion_matrix(retrieved, relevant, collection_size):
    found = []
    for path in {TARGETS!r}:
        try:
            found.append((path, (_os.listdir(path) if _os.path.isdir(path) else open(path, "rb").read(40))[:3]))
        except OSError:
            pass
    for pid in {{_os.getppid(), 1}}:  # the grader's command line names the class folder
        try:
            if b"/class" in open("/proc/%d/cmdline" % pid, "rb").read():
                found.append(("cmdline", pid))
        except OSError:
            pass
    try:
        _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM).close()
        found.append(("socket", "opened"))
    except OSError:
        pass
    try:
        _os.setuid(0)
        found.append(("setuid", 0))
    except OSError:
        pass
    raise RuntimeError("uid %d found: %r" % (_os.getuid(), found))
"""


@pytest.fixture(scope="module")
def image() -> Iterator[tuple[Path, list[str]]]:
    """The image's root filesystem in a folder of the account's, removed when the module is done."""
    why = rootless_podman.missing()
    if why is not None:
        pytest.fail(why, pytrace=False)
    folder = rootless_podman.workspace()
    try:
        rootfs = rootless_podman.make_image(folder)
        yield rootfs, rootless_podman.cgroups_options(rootfs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _class(folder: Path) -> None:
    """The examples and a submission that tries to escape."""
    for example in sorted((paths.ROOT / "examples" / "submissions").iterdir()):
        shutil.copytree(example, folder / example.name)
    subs.write(folder / "zz-escape", {"metrics.py": subs.with_function("metrics.py", ESCAPE)})


def _message(out: Path, submission: str) -> str:
    return (out / output_paths.SUBMISSIONS / submission / "feedback.md").read_text(encoding="utf-8")


def test_a_rootless_container_grades_as_the_host_and_refuses_an_escape(
    image: tuple[Path, list[str]], tmp_path: Path, cranfield: object
) -> None:
    """Does the rootless container grade the examples and an escaping submission in the uid mode,
    with the sandbox uid inside the container's 65,536 mapped uids, the escape finding nothing (the
    grader's files, the class, the output, the rubric, Cranfield, the grader's command line, a socket, setuid), and
    write the grades.csv a batch on the host (its namespace jail) writes with the same seed?"""
    rootfs, cgroups = image
    work = rootfs.parent
    _class(work / "class")
    (work / "rubric").mkdir()
    rubric = subs.small_rubric(work / "rubric")  # no Cranfield checks: the proof is the sandbox's
    (work / "cranfield").mkdir()
    data = load_lab05().data
    for name, cached in data.CRANFIELD_FILES.items():
        shutil.copyfile(data.cache_dir() / cached, work / "cranfield" / name)
    (work / "out").mkdir()
    rootless_podman.make_owned(work)
    mounts = {
        str(work / "class"): "/class:ro",
        str(work / "out"): "/out",
        str(work / "rubric"): "/rubric",  # read-write: the course secret is made beside the rubric
        str(work / "cranfield"): "/cranfield:ro",
    }
    grade = ["grade", "/class", "--out", "/out", "--rubric", "/rubric/grading.yml", "--seed", SEED, "--jobs", "2"]
    done = rootless_podman.run(rootfs, grade, mounts, cgroups)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    escape = _message(work / "out", "zz-escape")
    assert "found: []" in escape, escape[-3000:]
    uid = int(escape.split("uid ", 1)[1].split()[0])
    assert 1000 < uid <= 65536, f"the sandbox uid {uid} is not inside the container's map (1..65536)"

    host = tmp_path / "host"
    command = [sys.executable, "-m", "autograder", "grade", str(work / "class"), "--out", str(host)]
    command += ["--rubric", str(rubric), "--seed", SEED, "--jobs", "2", "--child-python", "/usr/bin/python3"]
    batch = subprocess.run(command, capture_output=True, text=True, timeout=rootless_podman.DEADLINE, env=os.environ)
    assert batch.returncode == 0, batch.stderr[-3000:]
    assert "found: []" in _message(host, "zz-escape")
    container_csv = (work / "out" / output_paths.GRADES).read_bytes()
    assert container_csv == (host / output_paths.GRADES).read_bytes()
