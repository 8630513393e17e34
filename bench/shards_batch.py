"""A class graded on one machine and as shards merged (``benchmark.py --shards``).

A generated class (``tests/support/generated.py``: copies of the examples, a ring of near copies, second
attempts over a limit of one a day), graded with the rubric less its Cranfield checks (or the
whole rubric with ``--full-rubric``) by ``python -m autograder grade`` as one batch, then as
``--shards`` shards one after another on this machine (each timed as if on a machine of its own),
then ``merge``; the cache is made first, outside the timings. Prints each step's wall time and
peak memory of its process tree, the time a class would take with the shards in parallel (the
slowest shard plus the merge), and whether the merged ``grades.csv`` is byte for byte the single
batch's and its class report the same but the timing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from measure import PYTHON, environment, run

from autograder import paths
from tests.support import generated


def _grade(folder: Path, out: Path, rubric: Path, jobs: int, cache: Path, *extra: str) -> tuple[float, int]:
    command = [PYTHON, "-m", "autograder", "grade", str(folder), "--out", str(out), "--jobs", str(jobs)]
    command += ["--seed", "bench", "--rubric", str(rubric), *extra]
    seconds, peak, _ = run(command, env=environment(cache), memory=True)
    return seconds, peak


def report(work: Path, size: int, count: int, jobs: int = 2, full: bool = False) -> dict:
    """Grade a generated class of ``size`` as one batch and as ``count`` shards merged; print and
    return the figures."""
    (work / "class").mkdir()
    folder = generated.generated_class(work / "class", size)
    rubric = paths.RUBRIC if full else generated.light_rubric(work)
    cache = work / "cache"
    print(f"\nShards: a class of {size} graded as one batch and as {count} shards merged (--jobs {jobs} each)")
    print(f"rubric: {'grading.yml' if full else 'grading.yml less its Cranfield checks'}")
    figures: dict = {"size": size, "shards": count, "jobs": jobs}
    _grade(folder / "submission_000000", work / "warm", rubric, 1, cache)  # the cache made before any timing
    single, peak = _grade(folder, work / "single", rubric, jobs, cache)
    figures["single"] = {"seconds": single, "peak_mib": peak / 2**20}
    print(f"{'one batch':<22}{single:8.1f} s  {size / single:6.2f} submissions/s  peak {peak / 2**20:6.0f} MiB")
    shard_figures = []
    for index in range(1, count + 1):
        seconds, peak = _grade(folder, work / f"shard-{index}", rubric, jobs, cache, "--shard", f"{index}/{count}")
        graded = len(list((work / f"shard-{index}" / "submissions").iterdir()))
        shard_figures.append({"seconds": seconds, "peak_mib": peak / 2**20, "submissions": graded})
        print(f"{f'shard {index}/{count} ({graded})':<22}{seconds:8.1f} s  peak {peak / 2**20:6.0f} MiB")
    figures["shard"] = shard_figures
    folders = [str(work / f"shard-{index}") for index in range(1, count + 1)]
    merged, peak, _ = run(
        [PYTHON, "-m", "autograder", "merge", str(work / "merged"), *folders], env=environment(cache), memory=True
    )  # with the shards' cache: its key signed their manifests
    figures["merge"] = {"seconds": merged, "peak_mib": peak / 2**20}
    print(f"{'merge':<22}{merged:8.1f} s  peak {peak / 2**20:6.0f} MiB")
    parallel = max(item["seconds"] for item in shard_figures) + merged
    figures["parallel_seconds"] = parallel
    print(f"{'shards in parallel':<22}{parallel:8.1f} s  (the slowest shard and the merge: {single / parallel:.1f}x)")
    same_grades = (work / "merged" / "grades.csv").read_bytes() == (work / "single" / "grades.csv").read_bytes()
    reports = [generated.without_timing((work / name / "index.html").read_text()) for name in ("single", "merged")]
    figures["same_grades_csv"], figures["same_report"] = same_grades, reports[0] == reports[1]
    said = f"merged grades.csv byte for byte the single batch's: {same_grades}"
    print(f"{said}; the class report but its timing: {figures['same_report']}")
    return figures
