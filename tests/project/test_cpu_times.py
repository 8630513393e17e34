"""What ``--cpu-times N`` reports of each test file (``tests/support/cpu_times.py``): the CPU and wall
time of every phase of its tests added up by file, the costliest first, and the total."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder import paths
from tests.support import cpu_times

COSTS = [
    # (id, phase reports (node id, phase, CPU s, wall s), expected {file: (CPU, wall, tests)})
    ("one-test-three-phases", [("t/a.py::x", "setup", 1.0, 2.0), ("t/a.py::x", "call", 0.5, 0.5),
                               ("t/a.py::x", "teardown", 0.25, 0.0)], {"t/a.py": (1.75, 2.5, 1)}),
    ("two-files", [("t/a.py::x", "call", 1.0, 1.0), ("t/b.py::y[1]", "call", 2.0, 3.0),
                   ("t/b.py::y[2]", "call", 0.5, 0.5)], {"t/a.py": (1.0, 1.0, 1), "t/b.py": (2.5, 3.5, 2)}),
    ("a-class-s-tests-are-its-file-s", [("t/a.py::C::x", "call", 1.0, 1.0), ("t/a.py::C::y", "call", 1.0, 1.0)],
     {"t/a.py": (2.0, 2.0, 2)}),
    ("none", [], {}),
]  # fmt: skip


@pytest.mark.parametrize(("reports", "expected"), [c[1:] for c in COSTS], ids=[c[0] for c in COSTS])
def test_a_file_s_cost_adds_up_every_phase_of_its_tests(reports, expected):
    """Is a file's CPU and wall time the sum over every phase of its tests, and are its tests
    counted once each whatever their phases?"""
    found = cpu_times.costs(reports)
    assert {path: (cost.cpu, cost.wall, len(cost.tests)) for path, cost in found.items()} == expected


TABLES = [
    # (id, phase reports, how many files to show, expected table rows after the header)
    ("costliest-first", [("t/a.py::x", "call", 1.0, 5.0), ("t/b.py::y", "call", 3.0, 1.0)], 5,
     ["| t/b.py | 1 | 3.0 s | 1.0 s |", "| t/a.py | 1 | 1.0 s | 5.0 s |", "| all 2 files | 2 | 4.0 s | 6.0 s |"]),
    ("cut-at-the-count-the-total-of-all", [("t/a.py::x", "call", 1.0, 1.0), ("t/b.py::y", "call", 3.0, 1.0)], 1,
     ["| t/b.py | 1 | 3.0 s | 1.0 s |", "| all 2 files | 2 | 4.0 s | 2.0 s |"]),
    ("ties-by-path", [("t/b.py::y", "call", 2.0, 1.0), ("t/a.py::x", "call", 2.0, 1.0)], 2,
     ["| t/a.py | 1 | 2.0 s | 1.0 s |", "| t/b.py | 1 | 2.0 s | 1.0 s |", "| all 2 files | 2 | 4.0 s | 2.0 s |"]),
]  # fmt: skip


@pytest.mark.parametrize(("reports", "count", "expected"), [t[1:] for t in TABLES], ids=[t[0] for t in TABLES])
def test_the_table_shows_the_costliest_files_and_the_total(reports, count, expected):
    """Does the table list the ``count`` files that took most CPU time, most first (ties by path),
    and then the total of every file?"""
    lines = cpu_times.table(cpu_times.costs(reports), count)
    assert lines[:2] == ["| file | tests | CPU | wall |", "|---|---|---|---|"]
    assert lines[2:] == expected


WORKERS = [
    # (id, each phase's (worker id, CPU s, wall s), expected table rows after the header)
    ("one-process", [("main", 1.0, 2.0), ("main", 0.5, 0.5)], ["| main | 1.5 s | 2.5 s |"]),
    ("two-workers-by-id", [("gw1", 3.0, 4.0), ("gw0", 1.0, 1.0), ("gw1", 1.0, 1.0)],
     ["| gw0 | 1.0 s | 1.0 s |", "| gw1 | 4.0 s | 5.0 s |"]),
    ("none", [], []),
]  # fmt: skip


@pytest.mark.parametrize(("spent", "expected"), [w[1:] for w in WORKERS], ids=[w[0] for w in WORKERS])
def test_each_worker_s_time_adds_up_its_tests_phases(spent, expected):
    """Is each worker's CPU and wall time the sum over the phases it ran, one row per worker in the
    order of their ids, so that two workers that finish together show the same wall time?"""
    lines = cpu_times.by_worker(spent)
    assert lines[:2] == ["| worker | CPU | wall |", "|---|---|---|"]
    assert lines[2:] == expected


@pytest.mark.parametrize("count", [0, -3])
def test_a_count_below_one_is_refused_saying_what_to_give(count):
    """Is ``--cpu-times`` with no file to show refused, naming the option, the value and what to give?"""
    with pytest.raises(ValueError) as raised:
        cpu_times.Recorder(count)
    assert "--cpu-times" in str(raised.value) and str(count) in str(raised.value)
    assert "positive integer" in str(raised.value)


#: a small suite: one test that makes a child burn CPU, one that waits without it
SUITE = {
    "test_busy.py": """
import subprocess, sys

def test_busy():
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(8_000_000))"], check=True)
""",
    "test_idle.py": """
import time

def test_idle():
    time.sleep(1.0)
""",
}


@pytest.mark.slow
@pytest.mark.parametrize("workers", [["-n", "0"], ["-n", "2"]], ids=["one-process", "two-workers"])
def test_a_run_reports_the_cpu_its_children_spent_by_file(workers, tmp_path):
    """Run in one process and by two xdist workers, does ``--cpu-times`` charge a child's CPU time
    to the file of the test that waited for it, not count a test's sleep as CPU time, and give the
    time of each process that ran tests (the one process, or the workers)?"""
    for name, source in SUITE.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-q", *workers]
    command += ["--rootdir", str(tmp_path), str(tmp_path), "--import-mode=importlib", "-o", "addopts="]
    command += ["--cpu-times", "5"]
    done = subprocess.run(command, cwd=paths.ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = {
        cells[0]: cells[1:]
        for line in done.stdout.splitlines()
        if line.startswith("| test_")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    assert sorted(rows) == ["test_busy.py", "test_idle.py"], done.stdout[-2000:]
    (busy_tests, busy_cpu, _), (idle_tests, idle_cpu, idle_wall) = rows["test_busy.py"], rows["test_idle.py"]
    seconds = {name: float(value.removesuffix(" s")) for name, value in
               [("busy", busy_cpu), ("idle", idle_cpu), ("idle wall", idle_wall)]}  # fmt: skip
    assert (busy_tests, idle_tests) == ("1", "1")
    assert seconds["busy"] >= 0.2 and seconds["idle"] < 0.2 and seconds["idle wall"] >= 1.0, done.stdout[-2000:]
    ran_by = {line.split("|")[1].strip() for line in done.stdout.splitlines() if line.startswith(("| main ", "| gw"))}
    assert ran_by and ran_by <= ({"main"} if workers == ["-n", "0"] else {"gw0", "gw1"}), done.stdout[-2000:]
