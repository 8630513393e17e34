"""What graded code may import, declared once (grading.yml's allowed_imports) and said the same
everywhere: the handout's public check knows the same list, passes honest files and fails an import
the autograder would refuse, with a message that says what to do; the child environment pins them."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import subs

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.platforms.common import doctor


def _handout_check():
    path = paths.HANDOUT / "tests" / "test_imports.py"
    namespace: dict = {"__file__": str(path)}
    exec(path.read_text(encoding="utf-8"), namespace)
    return namespace


def test_the_handout_and_the_rubric_allow_the_same():
    """Does the handout's public check allow exactly what grading.yml allows, and does the child
    environment pin a version of each?"""
    allowed = rubrics.load().allowed_imports
    assert tuple(sorted(_handout_check()["ALLOWED"])) == allowed
    assert set(allowed) <= set(doctor.pins())


@pytest.mark.parametrize(
    "line, fails",
    [("", False), ("import numpy as np\n", False), ("import pandas\n", True), ("from scipy import stats\n", True)],
    ids=["solution", "numpy", "pandas", "scipy"],
)
def test_the_public_check_fails_on_what_the_autograder_refuses(tmp_path, line, fails):
    """Run as a student runs it (pytest in the handout folder), does the import check pass the
    solution and numpy, and fail pandas or scipy naming the line and what to do?"""
    handout = tmp_path / "handout"
    shutil.copytree(paths.HANDOUT, handout, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    source = subs.SOLUTION["metrics.py"].replace(
        "from __future__ import annotations\n", "from __future__ import annotations\n" + line, 1
    )
    (handout / "lab05" / "metrics.py").write_text(source, encoding="utf-8")
    (handout / "lab05" / "runs.py").write_text(subs.SOLUTION["runs.py"], encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_imports.py", "-p", "no:cacheprovider"],
        cwd=handout,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode != 0) == fails, run.stdout[-1500:]
    if fails:
        assert "imports what the autograder does not have: line 15" in run.stdout
        assert "standard library and numpy only" in run.stdout


@pytest.mark.parametrize(
    "installed, ok, words",
    [
        ({"numpy": "1.26.4"}, True, "numpy 1.26.4 (as pinned)"),
        ({"numpy": "1.24.2"}, True, "the same major version"),
        ({"numpy": "2.4.6"}, False, "grades may differ from the platforms'"),
        ({"numpy": None}, False, "numpy MISSING"),
        ({}, False, "could not say"),
    ],
    ids=["pinned", "same-major", "other-major", "missing", "unknown"],
)
def test_the_doctor_says_whether_the_child_matches_the_pins(installed, ok, words):
    """Does the doctor say the child's numpy is the pinned one, warn on another major version or a
    missing package?"""
    found = doctor.child_packages(installed, ("numpy",), {"numpy": "1.26.4"})
    assert found.ok == ok and words in found.detail
