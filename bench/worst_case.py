"""What the worst submissions cost the grader itself (``benchmark.py --worst``).

Each submission is graded alone by ``python -m autograder grade --jobs 1`` in a process of its
own (the grader; the sandbox's children are other processes), three times; the table gives the
median wall time and the grader's own peak memory (its ru_maxrss), next to a correct submission's.
Target: no submission costs the grader more than 200 MB and 10 s beyond a correct one's.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support import attacks, subs

MEASURE = """
import json, resource, sys, time
from autograder import cli
started = time.monotonic()
code = cli.main(["grade", sys.argv[1], "--out", sys.argv[2], "--jobs", "1", "--force"])
print(json.dumps({"seconds": time.monotonic() - started, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

ROWS = (
    "def write_run(path, system_name, search_fn, queries, k=100):\n"
    "    with open(path, 'w') as out:\n"
    "        out.write(''.join(f'{q} Q0 D{i} {i} {1 / (i + 1):.8f} x\\n' for q in range(50) for i in range(2400)))\n"
)

WORST = {
    "correct (baseline)": {},
    "16 MiB of short lines from write_run": {
        "runs.py": "def write_run(path, system_name, search_fn, queries, k=100):\n"
        "    open(path, 'w').write('a\\n' * (8 << 20))\n"
    },
    "a 4 MiB run file of valid-looking rows for every scenario": {"runs.py": ROWS},
    "1 MiB answers from every metric": {"metrics.py": attacks.HUGE_ANSWERS},
    "20 MB printed at import": {
        "metrics.py": "import sys\nsys.stdout.write('x' * 20_000_000)\n" + subs.SOLUTION["metrics.py"]
    },
}


def _build(folder: Path, files: dict) -> Path:
    return subs.write(folder, files)


def _zip_of_many(folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "submission.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(300000):
            archive.writestr(f"venv/f{number}", b"")
        for name, text in subs.SOLUTION.items():
            archive.writestr(f"lab05/{name}", text)
    return path


def measure(python: str, submission: Path, out: Path, repetitions: int) -> tuple[float, float]:
    """Median wall seconds and median peak MiB of the grader over ``repetitions`` runs."""
    seconds, peaks = [], []
    for _ in range(repetitions):
        done = subprocess.run(
            [python, "-c", MEASURE, str(submission), str(out)], capture_output=True, text=True, cwd=ROOT, check=True
        )
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        seconds.append(figures["seconds"])
        peaks.append(figures["peak"] / 1024)
    return statistics.median(seconds), statistics.median(peaks)


def report(work: Path, repetitions: int = 3, python: str = sys.executable) -> None:
    submissions = {name: _build(work / f"worst-{number}", files) for number, (name, files) in enumerate(WORST.items())}
    submissions["a zip of 300,000 entries"] = _zip_of_many(work / "worst-zip")
    rows = {name: measure(python, path, work / "worst-out", repetitions) for name, path in submissions.items()}
    base_seconds, base_peak = rows["correct (baseline)"]
    print(
        f"Worst submissions: the grader's own cost (median of {repetitions}; target: <= 200 MB and 10 s more "
        "than a correct submission)"
    )
    print(f"   {'submission':58} {'wall':>8} {'grader peak':>12} {'beyond correct':>22}")
    for name, (seconds, peak) in rows.items():
        print(
            f"   {name:58} {seconds:6.2f} s {peak:8.0f} MiB   "
            f"{seconds - base_seconds:+6.2f} s {peak - base_peak:+6.0f} MiB"
        )
