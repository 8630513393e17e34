"""Gradescope's default container, simulated: run_autograder inside a memory cgroup of 768 MB (what
Gradescope gives an autograder by default) on the solutions and on memory bombs. The rubric's
default memory per child must leave the grader room, so the child's own limit stops a bomb
before the container's limit kills anything. As root (CI): a cgroup that cannot be made fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from autograder.grading import rubric
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from autograder.sandbox import machine
from tests.platforms.test_build import run_autograder
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

CONTAINER_BYTES = 768 << 20  # Gradescope's default memory for one autograder run

HOARD = """
def {function}(*args, **kwargs):
    hoard = []
    while True:
        hoard.append(b"x" * (16 << 20))  # written, so resident, not only reserved
"""
BOMBS = ("recall_at_k", "write_run")  # the functions whose memory bomb is tried


class MemoryCgroup:
    """A child of this process's own memory cgroup (v1, or v2 where its memory controller can
    be enabled) limited to ``limit`` bytes, swap included; ``enter`` is the command prefix that
    moves a command into it; ``oom_kills`` counts the kernel's kills inside it."""

    def __init__(self, limit: int):
        folders = machine.cgroup_folders()
        name = f"lab05-test-{uuid.uuid4().hex[:8]}"
        if "memory" in folders:
            self.version, self.folder = 1, folders["memory"] / name
            self.folder.mkdir()
            (self.folder / "memory.limit_in_bytes").write_text(str(limit))
            if (self.folder / "memory.memsw.limit_in_bytes").exists():
                (self.folder / "memory.memsw.limit_in_bytes").write_text(str(limit))
        elif "" in folders:
            parent = folders[""]
            if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
                (parent / "cgroup.subtree_control").write_text("+memory")
            self.version, self.folder = 2, parent / name
            self.folder.mkdir()
            (self.folder / "memory.max").write_text(str(limit))
            if (self.folder / "memory.swap.max").exists():
                (self.folder / "memory.swap.max").write_text("0")
        else:
            raise OSError("no cgroup v1 memory controller and no cgroup v2 hierarchy is mounted")

    @property
    def enter(self) -> tuple:
        return ("sh", "-c", f'echo $$ > {self.folder / "cgroup.procs"} && exec "$@"', "enter-cgroup")

    def oom_kills(self) -> int:
        events = "memory.oom_control" if self.version == 1 else "memory.events"
        for line in (self.folder / events).read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        raise AssertionError(f"{self.folder / events} does not count OOM kills")

    def remove(self) -> None:
        for pid in (self.folder / "cgroup.procs").read_text().split():
            try:
                os.kill(int(pid), 9)
            except ProcessLookupError:
                pass
        self.folder.rmdir()


@pytest.fixture
def container():
    """A 768 MB memory cgroup; a clear failure where none can be made (the test needs root)."""
    try:
        cgroup = MemoryCgroup(CONTAINER_BYTES)
    except OSError as error:
        pytest.fail(
            f"cannot make a memory cgroup of 768 MB to simulate Gradescope's container ({error}). Run the "
            "tests as root on a machine with cgroup v1's memory controller or cgroup v2 (CI does)",
            pytrace=False,
        )
    yield cgroup
    cgroup.remove()


def _graded(root: Path, cgroup: MemoryCgroup, files: dict, isolation: str) -> dict:
    document = run_autograder(root, files, isolation, prefix=cgroup.enter)
    return {test["name"].split(":")[0]: test for test in document["tests"]} | {"": document}


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_solutions_get_full_marks_in_768_mb(gradescope_root, container, isolation):
    """In a 768 MB container, does run_autograder give the solutions 100, with no process killed?"""
    tests = _graded(gradescope_root, container, {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}, isolation)
    assert tests[""]["score"] == 100
    assert container.oom_kills() == 0


@pytest.mark.parametrize("function", BOMBS)
@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_memory_bomb_loses_only_its_functions_points_in_768_mb(gradescope_root, container, isolation, function):
    """A function that hoards memory until it fails: in a 768 MB container, does the submission get
    everything but that function's points, the child's own memory limit stopping it (MemoryError)
    before the container's limit kills any process?"""
    file = spec.FUNCTIONS[function]
    files = {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}
    files[file] = subs.with_function(file, HOARD.format(function=function))
    tests = _graded(gradescope_root, container, files, isolation)
    worth = sum(
        check.points
        for check in rubric.load(default_lab().place.rubric, default_lab()).checks
        if check.function == function
    )
    assert worth > 0 and tests[""]["score"] == rubric.load(default_lab().place.rubric, default_lab()).total - worth
    lost = {test["name"] for name, test in tests.items() if name and test["score"] < test["max_score"]}
    assert lost and all(name.startswith(f"{function}:") for name in lost)
    assert "MemoryError" in str(tests[""])
    assert container.oom_kills() == 0, "the container's limit killed a process: limits.memory_mb leaves too little room"


@pytest.mark.parametrize("limit_mb, fits", [(768, True), (640, False)], ids=["768", "640"])
def test_doctor_reads_the_containers_memory(limit_mb, fits):
    """Inside a memory cgroup, does `doctor --json` read its limit and say whether the rubric's
    memory per child leaves the grader room in it?"""
    try:
        cgroup = MemoryCgroup(limit_mb << 20)
    except OSError as error:
        pytest.fail(f"cannot make a memory cgroup ({error}): run the tests as root", pytrace=False)
    try:
        run = subprocess.run(
            [
                *cgroup.enter,
                sys.executable,
                "-m",
                "autograder",
                "doctor",
                "--json",
                "--child-python",
                "/usr/bin/python3",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        cgroup.remove()
    found = json.loads(run.stdout)
    assert found["machine"]["resources"]["memory_bytes"] == limit_mb << 20
    assert found["memory_fit"]["ok"] is fits
