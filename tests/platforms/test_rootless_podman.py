"""The container route rootless, for real (docs/CONTAINER.md, docs/SCALING.md): Debian's podman
run by an unprivileged account with 65,536 subordinate uids, on an image laid out as the
Dockerfile's but made from this host's files (tests/support/rootless_podman.py: the suite reaches
no image registry). A small class graded in it must give the grades.csv of a batch on the host,
byte for byte, with the sandbox uids inside the container's uid map, and a submission trying to
escape must still find nothing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.lab.solution import load_lab05
from autograder.reports import output_paths
from tests.support import rootless_podman, subs

pytestmark = [pytest.mark.container, pytest.mark.sandbox, pytest.mark.slow]

SEED = "rootless"


def cranfield_folder(work: Path) -> dict[str, str]:
    """Cranfield's three files in a folder of the account's, mounted at the image's /cranfield."""
    folder = work / "cranfield"
    if not folder.exists():
        folder.mkdir()
        data = load_lab05().data
        for name, cached in data.CRANFIELD_FILES.items():
            shutil.copyfile(data.cache_dir() / cached, folder / name)
        rootless_podman.make_owned(folder)
    return {str(folder): "/cranfield:ro"}


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


def test_a_rootless_container_grades_as_the_host_and_refuses_an_escape(
    image: tuple[Path, list[str]], tmp_path: Path, cranfield: object
) -> None:
    """Does the rootless container grade the examples and an escaping submission in the uid mode,
    with the sandbox uid inside the container's 65,536 mapped uids, the escape finding nothing (the
    grader's files, the class, the output, the rubric, Cranfield, the grader's command line, a socket, setuid), and
    write the grades.csv a batch on the host (its namespace jail) writes with the same seed?"""
    rootfs, cgroups = image
    work = rootfs.parent
    rootless_podman.write_class(work / "class")
    (work / "rubric").mkdir()
    rubric = subs.small_rubric(work / "rubric")  # no Cranfield checks: the proof is the sandbox's
    (work / "out").mkdir()
    rootless_podman.make_owned(work)
    mounts = {
        str(work / "class"): "/class:ro",
        str(work / "out"): "/out",
        str(work / "rubric"): "/rubric",  # read-write: the course secret is made beside the rubric
        **cranfield_folder(work),
    }
    grade = ["grade", "/class", "--out", "/out", "--rubric", "/rubric/grading.yml", "--seed", SEED, "--jobs", "2"]
    done = rootless_podman.run(rootfs, grade, mounts, cgroups)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    escape = rootless_podman.message(work / "out", "zz-escape")
    assert "found: []" in escape, escape[-3000:]
    uid = int(escape.split("uid ", 1)[1].split()[0])
    assert 1000 < uid <= 65536, f"the sandbox uid {uid} is not inside the container's map (1..65536)"

    host = rootless_podman.grade_on_host(work / "class", tmp_path / "host", rubric, SEED)
    assert "found: []" in rootless_podman.message(host, "zz-escape")
    container_csv = (work / "out" / output_paths.GRADES).read_bytes()
    assert container_csv == (host / output_paths.GRADES).read_bytes()


def test_sandbox_uids_outside_the_map_are_refused_with_a_message(
    image: tuple[Path, list[str]], cranfield: object
) -> None:
    """With the sandbox uids placed where a rootful container puts them (100064, outside the 65,536
    uids a rootless container maps), does the grader stop with exit status 2 naming the unmapped
    uids and the map, rather than grade or crash?"""
    rootfs, cgroups = image
    example = "/lab05/repo/examples/submissions/ada-correct"
    grade = ["grade", example, "--out", "/tmp/out", "--isolation", "uid"]
    mounts = cranfield_folder(rootfs.parent)
    done = rootless_podman.run(rootfs, grade, mounts, cgroups, AUTOGRADER_SANDBOX_UID="100064")
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-3000:]
    assert "are not mapped in this user namespace" in done.stderr, done.stderr[-3000:]
    assert "100064" in done.stderr
