"""What a hostile file an instructor is handed costs the grader (``benchmark.py --hostile-files``).

A Gradescope export of two correct submissions is graded by ``python -m autograder grade
--jobs 1`` in a process of its own, once with a clean ``submission_metadata.yml`` and once with
the 371-byte alias bomb (``tests/support/hostile_files.py``); the table gives the wall time, the grader's
own peak memory (its ru_maxrss; the sandbox's children are other processes) and what it wrote.
``--checkout DIR`` grades with another checkout's grader (e.g. one of main, to compare).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support import hostile_files

MEASURE = """
import json, resource, sys, time
from autograder import cli
started = time.monotonic()
code = cli.main(["grade", sys.argv[1], "--out", sys.argv[2], "--jobs", "1", "--force"])
print(json.dumps({"code": code, "seconds": time.monotonic() - started,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

CLEAN = (
    "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :email: ada@example.edu\n    :sid: '1815'\n"
    "submission_2:\n  :submitters:\n  - :name: Alan Turing\n    :email: alan@example.edu\n    :sid: '1912'\n"
)


def measure(python: str, export: Path, out: Path, checkout: Path) -> dict:
    """The grader's exit code, wall seconds, peak MiB, and the bytes of what it wrote."""
    done = subprocess.run([python, "-c", MEASURE, str(export), str(out)], capture_output=True, text=True, cwd=checkout)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"code": done.returncode, "seconds": 0.0, "peak": 0, "failed": done.stderr.strip()[-300:]}
    figures = json.loads(lines[-1])
    sizes = {path: path.stat().st_size for path in out.rglob("*") if path.is_file()}
    figures.update(
        grades=sizes.get(out / "grades.csv", 0), report=sizes.get(out / "index.html", 0), total=sum(sizes.values())
    )
    return figures


def report(work: Path, python: str = sys.executable, checkout: Path = ROOT) -> None:
    exports = {
        "clean metadata (baseline)": hostile_files.export(work / "clean", CLEAN),
        "the 371-byte alias bomb": hostile_files.export(work / "bomb", hostile_files.alias_bomb()),
    }
    print(f"Hostile files an instructor is handed: the grader at {checkout}, two correct submissions, --jobs 1")
    print(
        f"   {'submission_metadata.yml':28} {'exit':>4} {'wall':>8} {'grader peak':>12} {'grades.csv':>12} "
        f"{'index.html':>12} {'all outputs':>12}"
    )
    for name, export in exports.items():
        row = measure(python, export, work / f"out-{export.name}", checkout)
        if "failed" in row:
            print(f"   {name:28} {row['code']:>4} failed: {row['failed']}")
            continue
        print(
            f"   {name:28} {row['code']:>4} {row['seconds']:6.1f} s {row['peak'] / 1024:8.0f} MiB "
            f"{row['grades'] / 1e3:9.1f} kB {row['report'] / 1e3:9.1f} kB {row['total'] / 1e6:9.1f} MB"
        )
