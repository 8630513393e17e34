"""run_autograder in a simulated Gradescope root (``benchmark.py --container``, as root): wall
time and peak memory (the grader's own, its largest child's, and the whole process tree's), the
figures grading.yml's memory_mb rests on."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import time
import zipfile
from pathlib import Path

from measure import PYTHON, TreeMemory

from tests.support import subs

PEAK = re.compile(r"peak memory of the grader: (\d+) MiB")


def container_figures(work: Path, repetitions: int) -> dict:
    """run_autograder on the solutions in a simulated /autograder (autograder.zip unpacked and
    setup.sh run, installing skipped): seconds and peaks, per isolation."""
    from tests.conftest import build_dist

    root = work / "autograder-root"
    source = root / "source"
    source.mkdir(parents=True)
    with zipfile.ZipFile(build_dist(work / "dist")["autograder"]) as archive:
        archive.extractall(source)
        for info in archive.infolist():
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    subprocess.run(
        ["bash", str(source / "setup.sh")],
        check=True,
        timeout=120,
        env={**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_SKIP_INSTALL": "1"},
    )
    (root / "submission").mkdir()
    for name, text in subs.SOLUTION.items():
        (root / "submission" / name).write_text(text)
    figures = {}
    for isolation in ("auto", "uid"):
        env = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
        env.update(
            AUTOGRADER_ROOT=str(root),
            AUTOGRADER_PYTHON=PYTHON,
            AUTOGRADER_CHILD_PYTHON="/usr/bin/python3",
            AUTOGRADER_ISOLATION=isolation,
        )
        rows = []
        for _ in range(repetitions):
            started = time.monotonic()
            process = subprocess.Popen(
                ["bash", str(source / "run_autograder")], env=env, cwd="/", stdout=subprocess.PIPE, text=True
            )
            sampler = TreeMemory(process.pid)
            out, _ = process.communicate()
            tree = sampler.finish()
            grader = int(PEAK.search(out).group(1))  # the grader's own VmHWM, printed on its stdout
            rows.append((time.monotonic() - started, grader, sampler.largest_descendant >> 20, tree >> 20))
        figures[isolation] = rows
    return figures


def container_report(work: Path, repetitions: int) -> None:
    figures = container_figures(work, repetitions)
    print(f"run_autograder on the solutions in a simulated Gradescope root ({repetitions} runs each):")
    for isolation, rows in figures.items():
        seconds, grader, child, tree = zip(*rows)
        print(
            f"   --isolation {isolation:4}: median {statistics.median(seconds):5.2f} s; peak memory: grader "
            f"{max(grader)} MiB, largest child {max(child)} MiB, whole tree {max(tree)} MiB (sampled)"
        )
