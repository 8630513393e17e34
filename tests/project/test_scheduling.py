"""How ``make test`` shares the suite between its two workers (``tests/support/scheduling.py``): a
file's tests stay together unless the table splits the file by a parameter, the slow groups go
first, and the table names files and values that exist."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder import paths
from tests.support import scheduling

SPLIT = {"tests/e/test_h.py": ("jail", "uid", "lab05-jail"), "tests/e/test_bad.py": "jail"}
GROUPS = [
    # (id, node id, expected group)
    ("a-file-not-split", "tests/a/test_x.py::test_y[uid-1]", "tests/a/test_x.py"),
    ("no-parameters", "tests/e/test_h.py::test_suite_is_large_enough", "tests/e/test_h.py"),
    ("split-value-first", "tests/e/test_h.py::test_outcome[uid-sys-exit]", "tests/e/test_h.py::uid"),
    ("split-value-alone", "tests/e/test_h.py::test_orphans[jail]", "tests/e/test_h.py::jail"),
    ("the-longest-value-fits", "tests/e/test_h.py::test_outcome[lab05-jail-network]", "tests/e/test_h.py::lab05-jail"),
    ("a-value-last", "tests/e/test_h.py::test_outcome[network-uid]", "tests/e/test_h.py::uid"),
    ("the-first-value-wins", "tests/e/test_h.py::test_outcome[jail-x-uid]", "tests/e/test_h.py::jail"),
    ("a-value-inside-is-no-split", "tests/e/test_h.py::test_outcome[x-uid-y]", "tests/e/test_h.py"),
    ("a-value-s-prefix-is-no-split", "tests/e/test_h.py::test_outcome[uidx-1]", "tests/e/test_h.py"),
    ("a-value-s-suffix-is-no-split", "tests/e/test_h.py::test_outcome[1-xuid]", "tests/e/test_h.py"),
    ("a-class-s-test", "tests/e/test_h.py::TestA::test_b[jail-1]", "tests/e/test_h.py::jail"),
]


@pytest.mark.parametrize(("nodeid", "expected"), [g[1:] for g in GROUPS], ids=[g[0] for g in GROUPS])
def test_a_test_s_group_is_its_file_or_its_file_and_the_split_value(nodeid, expected):
    """Is a test's group its file, or, in a file split by a parameter, its file and the value its
    parameter id starts (or else ends) with?"""
    assert scheduling.group_of(nodeid, SPLIT) == expected


def test_a_split_given_as_one_string_is_refused_with_the_fix():
    """Is a file's split values given as one string (a missing comma in a tuple of one) refused
    with a message that names the file and the fix?"""
    with pytest.raises(TypeError) as raised:
        scheduling.group_of("tests/e/test_bad.py::test_x[jail]", SPLIT)
    assert "tests/e/test_bad.py" in str(raised.value) and "('jail',)" in str(raised.value)


ORDERS = [
    # (id, each test's group, each test's slow mark, the groups sent first, expected order)
    ("none-slow", ["a", "a", "b"], [False, False, False], (), [0, 1, 2]),
    ("slow-group-first", ["a", "b", "b", "c"], [False, False, True, False], (), [1, 2, 0, 3]),
    ("a-slow-test-moves-its-whole-group", ["a", "b", "a"], [False, True, False], (), [1, 0, 2]),
    ("slow-groups-keep-their-order", ["a", "b", "c", "d"], [False, True, False, True], (), [1, 3, 0, 2]),
    ("a-first-group-before-the-slow-ones", ["a", "b", "c"], [True, False, True], ("c",), [2, 0, 1]),
    ("first-groups-in-the-table-s-order", ["a", "b", "c", "b"], [True, True, True, True], ("c", "b"), [2, 1, 3, 0]),
    ("a-first-group-not-collected-changes-nothing", ["a", "b"], [False, True], ("z",), [1, 0]),
]


@pytest.mark.parametrize(("groups", "slow", "first", "expected"), [o[1:] for o in ORDERS], ids=[o[0] for o in ORDERS])
def test_the_costliest_groups_then_the_slow_ones_run_first_in_their_order(groups, slow, first, expected):
    """Are the tests of the groups the table sends first sent first, in the table's order, then
    those of every other group that holds a slow test, each kept in its collection order, and the
    others after?"""
    assert scheduling.slow_first(groups, slow, first) == expected


@pytest.mark.slow  # collects the split files in a process of its own
def test_every_split_value_has_its_tests():
    """Collected as ``make test`` collects them, does every value ``SPLIT`` splits a file by
    have tests of its own in that file (a renamed file or mode would silently keep the file on one
    worker)?"""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *scheduling.SPLIT]
    done = subprocess.run(command, cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    groups = {scheduling.group_of(line) for line in done.stdout.splitlines() if "::" in line}
    wanted = {f"{path}::{value}" for path, values in scheduling.SPLIT.items() for value in values}
    assert sorted(wanted - groups) == []


def test_every_group_sent_first_is_a_group_of_the_suite():
    """Does every group ``FIRST`` sends first name a test file that exists (and, for a split file,
    one of its values), so that a renamed file does not silently lose its place?"""
    missing = []
    for group in scheduling.FIRST:
        path, _, value = group.partition("::")
        if not (paths.ROOT / path).is_file() or (value and value not in scheduling.SPLIT.get(path, ())):
            missing.append(group)
    assert missing == []
    assert len(set(scheduling.FIRST)) == len(scheduling.FIRST)


SYNTHETIC = {
    # a file the table splits (by name: the table's own path), its fixture made per value
    "tests/end_to_end/test_leaks.py": """
import os, pytest
pytestmark = pytest.mark.slow

def log(line):
    with open(os.path.join(os.environ["RAN"], os.environ["PYTEST_XDIST_WORKER"]), "a") as out:
        out.write(line + "\\n")

@pytest.fixture(scope="module", params=["jail", "uid"])
def local(request):
    log(f"fixture-{request.param}")
    return request.param

@pytest.mark.parametrize("n", range(3))
def test_split(local, n):
    log(f"split-{local}-{n}")

def test_alone():
    log("alone")
""",
    # a file that is not split, first in collection order but not slow
    "tests/a/test_fast.py": """
import os, pytest

def log(line):
    with open(os.path.join(os.environ["RAN"], os.environ["PYTEST_XDIST_WORKER"]), "a") as out:
        out.write(line + "\\n")

@pytest.mark.parametrize("n", range(4))
def test_fast(n):
    log(f"fast-{n}")
""",
}


@pytest.mark.slow
def test_make_test_s_workers_run_each_group_whole_and_the_slow_ones_first(tmp_path):
    """Run by two xdist workers as ``make test`` runs the suite, are each split value's tests on one
    worker with its fixture made once, the file's other tests on one worker, every file not split
    whole on one worker, and does each worker start with a slow group?"""
    suite = tmp_path / "suite"
    for name, source in SYNTHETIC.items():  # no __init__.py: imported by path, not as this repository's tests
        (suite / name).parent.mkdir(parents=True, exist_ok=True)
        (suite / name).write_text(source, encoding="utf-8")
    ran = tmp_path / "ran"
    ran.mkdir()
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-q"]
    command += ["-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder", "--rootdir", str(suite), str(suite)]
    command += ["--import-mode=importlib", "-o", "markers=slow", "-o", "addopts="]
    done = subprocess.run(
        command, cwd=paths.ROOT, env={**os.environ, "RAN": str(ran)}, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    logs = {path.name: path.read_text().split() for path in ran.iterdir()}
    where = {line: worker for worker, lines in logs.items() for line in lines}
    assert len(logs) == 2, logs
    for value in ("jail", "uid"):
        lines = [f"fixture-{value}"] + [f"split-{value}-{n}" for n in range(3)]
        assert {where[line] for line in lines} == {where[f"fixture-{value}"]}, logs
        assert sum(line == f"fixture-{value}" for worker in logs.values() for line in worker) == 1, logs
    assert len({where[f"fast-{n}"] for n in range(4)}) == 1, logs
    assert all(lines[0].startswith(("fixture-", "split-", "alone")) for lines in logs.values()), logs
