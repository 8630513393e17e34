"""What graded code may import, declared once (grading.yml's allowed_imports) and said the same
everywhere: the handout's public check knows the same list, passes honest files and fails an import
the autograder would refuse, with a message that says what to do; the child environment pins them."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import doctor
from tests.support import subs


def _handout_check():
    path = paths.HANDOUT / "tests" / "test_imports.py"
    namespace: dict = {"__file__": str(path)}
    exec(path.read_text(encoding="utf-8"), namespace)
    return namespace


def test_the_handout_and_the_rubric_allow_the_same():
    """Does the handout's public check allow exactly what grading.yml allows, and does the child
    environment pin a version of each?"""
    allowed = rubrics.load(default_lab().place.rubric, default_lab()).allowed_imports
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
        where = source.splitlines().index(line.rstrip("\n")) + 1  # the line the import was put on
        assert f"imports what the autograder does not have: line {where}" in run.stdout
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


def _environment_check():
    path = paths.HANDOUT / "tests" / "test_environment.py"
    namespace: dict = {"__file__": str(path), "__name__": "handout_environment"}
    exec(path.read_text(encoding="utf-8"), namespace)
    return namespace


def test_the_public_check_names_the_childrens_versions():
    """Does the handout's environment check name, for each package graded code may import, exactly
    the version requirements/child.txt pins (the one graded code runs with)?"""
    allowed = rubrics.load(default_lab().place.rubric, default_lab()).allowed_imports
    pinned = doctor.pins()
    assert _environment_check()["GRADED_VERSIONS"] == {name: pinned[name] for name in allowed}


@pytest.mark.parametrize(
    "installed, words",
    [
        ("1.26.4", ""),
        ("1.26.0", ""),
        ("1.24.2", "you have numpy 1.24.2, but your code is graded with numpy 1.26.4"),
        ("2.4.6", "you have numpy 2.4.6, but your code is graded with numpy 1.26.4"),
        (None, "numpy is not installed, and your code is graded with numpy 1.26.4"),
    ],
    ids=["graded", "same-minor", "older-minor", "numpy-2", "missing"],
)
def test_the_environment_check_compares_major_minor(installed, words):
    """Does the handout's environment check accept the graded major.minor and name any other
    (or a missing package) with the graded version?"""
    assert _environment_check()["difference"]("numpy", "1.26.4", installed) == words


def test_the_environment_check_fails_in_a_numpy_2_environment(tmp_path):
    """Run as a student runs it, in an environment with another numpy (the grader's own), does the
    check fail, saying which numpy is graded and what to do?"""
    import numpy

    assert numpy.__version__.split(".")[:2] != doctor.pins()["numpy"].split(".")[:2], "this needs another numpy"
    handout = tmp_path / "handout"
    shutil.copytree(paths.HANDOUT / "tests", handout / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_environment.py", "-p", "no:cacheprovider"],
        cwd=handout,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0, run.stdout[-1500:]
    assert f"you have numpy {numpy.__version__}, but your code is graded with numpy 1.26.4" in run.stdout
    assert "pip install -r requirements.txt" in run.stdout
