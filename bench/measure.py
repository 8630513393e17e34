"""What every section of the benchmark measures with: running a command (wall time, and the
peak memory of its process tree if asked), medians and p95, the grader's outputs read back."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

PYTHON = sys.executable


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def median(values) -> float:
    return statistics.median(values)


class TreeMemory:
    """Peak resident memory of a process and all its descendants, sampled every 20 ms; also the
    largest peak (VmHWM) of any one descendant."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.largest_descendant = 0
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _tree(self):
        children: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
                    children.setdefault(int(fields[1]), []).append(int(entry.name))
                except (OSError, IndexError, ValueError):
                    pass
        found, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo += children.get(pid, [])
        return found

    def _sample(self):
        while not self.stop.is_set():
            total = 0
            for pid in self._tree():
                try:
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1]) * 1024
                        elif line.startswith("VmHWM:") and pid != self.pid:
                            self.largest_descendant = max(self.largest_descendant, int(line.split()[1]) * 1024)
                except OSError:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.02)

    def finish(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.peak


def run(command, env=None, cwd=None, memory=False) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time (and, if asked, peak memory of the process tree, sampled) of one command."""
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeMemory(process.pid) if memory else None
    out, err = process.communicate()
    peak = sampler.finish() if sampler else 0
    seconds = time.monotonic() - started
    done = subprocess.CompletedProcess(command, process.returncode, out, err)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed (exit {done.returncode}):\n{err[-2000:]}")
    return seconds, peak, done


def environment(cache: Path) -> dict:
    return {**os.environ, "AUTOGRADER_CACHE": str(cache)}


def grade_command(submissions: Path, out: Path, jobs: int = 1, isolation: str = "auto") -> list[str]:
    """``python -m autograder grade`` of a submission or a folder of them into ``out``."""
    return [PYTHON, "-m", "autograder", "grade", str(submissions), "--out", str(out), "--force"] + [
        "--jobs",
        str(jobs),
        "--isolation",
        isolation,
    ]


def grades(out: Path) -> list[dict]:
    """Every ``grade.json`` a batch wrote (``OUT/submissions/<id>/grade.json``); an error if
    there is none, so that a change of layout fails loudly instead of measuring nothing."""
    found = [json.loads(path.read_text()) for path in sorted((out / "submissions").glob("*/grade.json"))]
    if not found:
        raise RuntimeError(f"no grade.json under {out}/submissions/<id>/: has the output layout changed?")
    return found


CHILD_TIME = re.compile(r"child time ([0-9.]+) s")


def child_times(out: Path) -> list[float]:
    """The seconds the sandboxed children of each submission ran (the grader's log in grade.json)."""
    return [float(CHILD_TIME.search(grade["instructor_log"]).group(1)) for grade in grades(out)]


def execution_times(out: Path) -> list[float]:
    """The seconds the grader spent on each submission of a batch (what grade.json records)."""
    return [grade["execution_time"] for grade in grades(out)]
