"""Do honest submissions of every style get full marks in both sandbox modes?

One file of each base style of the blind honest corpus (``tests/support/answers_corpus.py``: ``honest()``,
names ``base+habits``; the variant with the most habits), each beside the solution's ``runs.py``,
graded in one batch per mode: the namespace jail, and the uid mode with ``/usr/bin/python3`` as the
children's interpreter (as on Gradescope). Only the score is asserted: the "may hold answers" flag
is tuned elsewhere on the same corpus.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from tests.support import answers_corpus as corpus

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.cranfield]

MODES = {"jail": [], "uid": ["--child-python", "/usr/bin/python3"]}


def _one_per_base() -> dict[str, str]:
    chosen: dict[str, tuple[str, str]] = {}
    for name, source in corpus.honest():
        base = name.split("+")[0]
        if base not in chosen or name.count("+") > chosen[base][0].count("+"):
            chosen[base] = (name, source)
    return dict(chosen.values())


@pytest.mark.parametrize("mode", sorted(MODES))
def test_honest_files_of_every_style_get_full_marks(tmp_path: Path, mode: str, cranfield) -> None:
    """Does every base style's honest metrics.py, with the solution's runs.py, score 100 of 100?"""
    files = _one_per_base()
    assert len(files) >= 30, sorted(files)
    folder = tmp_path / "class"
    for name, source in files.items():
        submission = folder / name.replace("+", "_")
        submission.mkdir(parents=True)
        (submission / "metrics.py").write_text(source, encoding="utf-8")
        shutil.copy(paths.SOLUTIONS / "lab05" / "runs.py", submission / "runs.py")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out), "--isolation", mode]
    done = subprocess.run(command + MODES[mode], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    with (out / "grades.csv").open(encoding="utf-8") as table:
        totals = {row["submission"]: float(row["total"]) for row in csv.DictReader(table)}
    assert len(totals) == len(files)
    lost = {name: total for name, total in totals.items() if total != 100.0}
    assert lost == {}, f"{mode}: honest files lost points: {lost}"
