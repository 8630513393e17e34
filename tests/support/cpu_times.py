"""What each test file costs (``--cpu-times N``, ``tests/conftest.py`` applies it): after the run,
the N files that took most CPU time, with their wall time and tests, for docs/TESTING.md's table,
and each worker's CPU and wall time (the workers finish together when their wall times are equal).

A test's CPU time is the user and system time its process (the worker, under pytest-xdist) and
every child it waited for (sandbox children, graders, builds) spent in its setup, call and
teardown: a module fixture is charged to the file of the test that made it. A process the tests
do not wait for (a container's, run by podman's own monitor) is not counted. Each phase's time
travels in its report (``user_properties``), so the controller of ``-n 2`` adds up both workers'."""

from __future__ import annotations

import resource
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field

import pytest

KEY = "cpu_seconds"


def cpu_seconds() -> float:
    """User and system CPU time of this process and of the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class FileCost:
    """One test file's CPU and wall seconds (every phase of its tests) and its tests."""

    cpu: float = 0.0
    wall: float = 0.0
    tests: set[str] = field(default_factory=set)


def costs(reports: Iterable[tuple[str, str, float, float]]) -> dict[str, FileCost]:
    """Each file's cost from its tests' phase reports: (node id, phase, CPU seconds, wall seconds)."""
    found: dict[str, FileCost] = {}
    for nodeid, _phase, cpu, wall in reports:
        cost = found.setdefault(nodeid.partition("::")[0], FileCost())
        cost.cpu += cpu
        cost.wall += wall
        cost.tests.add(nodeid)
    return found


def table(found: dict[str, FileCost], count: int) -> list[str]:
    """The ``count`` costliest files, most CPU first (ties by path), as a Markdown table, and the
    total of every file."""
    rows = sorted(found.items(), key=lambda item: (-item[1].cpu, item[0]))[:count]
    lines = ["| file | tests | CPU | wall |", "|---|---|---|---|"]
    lines += [f"| {path} | {len(cost.tests)} | {cost.cpu:.1f} s | {cost.wall:.1f} s |" for path, cost in rows]
    cpu, wall = sum(cost.cpu for cost in found.values()), sum(cost.wall for cost in found.values())
    tests = sum(len(cost.tests) for cost in found.values())
    lines.append(f"| all {len(found)} files | {tests} | {cpu:.1f} s | {wall:.1f} s |")
    return lines


def by_worker(spent: Iterable[tuple[str, float, float]]) -> list[str]:
    """Each worker's CPU and wall time from its tests' phases (worker id, CPU seconds, wall seconds),
    as a Markdown table by worker id: the wall times are equal when the workers finish together."""
    found: dict[str, tuple[float, float]] = {}
    for worker, cpu, wall in spent:
        before = found.get(worker, (0.0, 0.0))
        found[worker] = (before[0] + cpu, before[1] + wall)
    lines = ["| worker | CPU | wall |", "|---|---|---|"]
    return lines + [f"| {worker} | {cpu:.1f} s | {wall:.1f} s |" for worker, (cpu, wall) in sorted(found.items())]


class Recorder:
    """The plugin ``--cpu-times N`` registers: each phase's CPU time put in its report where the
    test runs, every report's added up where the run is summed (the controller, or the one process)."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"--cpu-times: {count} files to show, expected a positive integer such as 25")
        self.count = count
        self.mark = cpu_seconds()  # the CPU time at the end of the last phase timed here
        self.reports: list[tuple[str, str, float, float]] = []
        self.workers: list[tuple[str, float, float]] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.mark = cpu_seconds()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        now = cpu_seconds()
        report.user_properties.append((KEY, now - self.mark))
        self.mark = now
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        spent = [value for name, value in report.user_properties if name == KEY]
        if spent:
            self.reports.append((report.nodeid, report.when or "", float(spent[-1]), report.duration))
            node = getattr(report, "node", None)  # the xdist worker that ran it, on the controller
            worker = node.gateway.id if node is not None else "main"
            self.workers.append((worker, float(spent[-1]), report.duration))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.reports:  # an xdist worker's summary is not shown: the controller has them all
            return
        terminalreporter.write_sep("=", f"CPU time of the {self.count} costliest test files")
        for line in table(costs(self.reports), self.count):
            terminalreporter.write_line(line)
        terminalreporter.write_sep("=", "CPU and wall time of each worker")
        for line in by_worker(self.workers):
            terminalreporter.write_line(line)
