"""The benchmark cannot rot: its smoke run (every section, a handful of submissions, one
repetition) must produce figures in every section. What the figures are is never checked here:
timings belong to the benchmark's output, not to tests."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from autograder import paths

BENCH = paths.ROOT / "bench"

from bench import benchmark, otter_suite

SECTIONS = {
    "single": "1. One full submission",
    "batch": "2. Batch of",
    "otter": "3. The same correct submission",
    "overhead": "4. The sandbox's own cost",
    "retrieval": "5. The given retrieval",
    "similarity": "6. Code similarity",
}


def _numbers(value):
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.cranfield
def test_every_section_of_the_benchmark_produces_figures(tmp_path, cranfield):
    """Does `bench/benchmark.py --smoke` run to the end and give figures (finite numbers) in every
    section, and the ratios to otter where otter is installed (else say it is unavailable)?"""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "benchmark.py"), "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert set(figures) == set(SECTIONS)
    for section, heading in SECTIONS.items():
        numbers = list(_numbers(figures[section]))
        assert numbers and all(math.isfinite(number) for number in numbers), section
        assert heading in done.stdout, heading
    versus = figures["otter"]
    if otter_suite.otter_program() is None:
        assert versus["unavailable"] and "UNAVAILABLE" in done.stdout
    else:
        assert versus["otter"] and versus["ratio_single"] > 0 and versus["ratio_in_batch"] > 0
        assert "ratios: alone" in done.stdout
    assert len(figures["overhead"]["auto_children"]) == len(figures["overhead"]["none_children"]) == 1


@pytest.mark.slow
@pytest.mark.sandbox
def test_the_shards_section_produces_figures_and_compares_the_merge(tmp_path):
    """Does `bench/benchmark.py --shards 2 --smoke` grade its class as one batch and as two shards,
    merge them, and give finite figures for every step and the merge's equality with the batch?"""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "benchmark.py"), "--shards", "2", "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())["shards"]
    assert [len(figures["shard"]), sum(item["submissions"] for item in figures["shard"])] == [2, figures["size"]]
    for step in (figures["single"], *figures["shard"], figures["merge"]):
        assert step["seconds"] > 0 and math.isfinite(step["peak_mib"])
    assert figures["same_grades_csv"] is True and figures["same_report"] is True
    assert "shards in parallel" in done.stdout


def test_without_otter_the_comparison_says_so_instead_of_crashing(tmp_path, monkeypatch, capsys):
    """Where otter-grader is not installed, does the otter section say it is unavailable (and
    print the rest) rather than fail?"""
    monkeypatch.setattr(otter_suite, "otter_program", lambda: None)
    otter = otter_suite.Otter(tmp_path, tmp_path / "cache", {})
    assert "otter-grader is not installed" in otter.unavailable
    versus = {"unavailable": otter.unavailable, "single": [1.0], "in_batch": [0.5], "batch_size": 3}
    versus["batch_wall_per_submission"] = [0.4]
    versus["profile"] = [["runner.run", 0.87, 0.1, 12]]
    benchmark.print_otter(versus, 1)
    printed = capsys.readouterr().out
    assert "otter run: UNAVAILABLE, no ratio to otter: otter-grader is not installed" in printed
    assert "0.87 s cumulative" in printed and "runner.run" in printed  # the profile beside the figures
    assert "ratios" not in printed and "one submission in a --jobs 2 batch of 3" in printed


def test_an_otter_that_fails_is_reported_as_unavailable(tmp_path, monkeypatch, cranfield):
    """Where `otter run` exists but fails (a slimmed or broken install), is the reason kept?"""
    from autograder import cache

    stored = cache.cache_dir()  # the bundle the session's fixtures made: not computed again
    monkeypatch.setenv("AUTOGRADER_CACHE", str(stored))  # Otter sets it for its own runs
    (tmp_path / "bin").mkdir()
    broken = tmp_path / "bin" / "otter"
    broken.write_text("#!/bin/sh\necho 'No module named otter.run' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(otter_suite, "otter_program", lambda: str(broken))
    otter = otter_suite.Otter(tmp_path, stored, {"metrics.py": "", "runs.py": ""})
    assert otter.unavailable == "`otter run` failed here: No module named otter.run"
