"""A build of a lab folder other than this repository's own (``--lab FOLDER``) and of a course's own
rubric (``build --rubric FILE``): the shipment names the lab's files relative to the lab's package,
wherever its folder is, and ships the rubric it is given with the course secret kept beside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import course_secret
from autograder.platforms.common import shipment

pytestmark = [pytest.mark.cranfield, pytest.mark.slow]

SECRET = "0123456789abcdef" * 4


def _copy_of_lab05(folder: Path) -> Path:
    """Lab 05 as a lab folder of its own (``docs/LABS.md``): lab/, grading.yml, assignment/, solutions/."""
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(paths.LAB_PACKAGE, folder / "lab", ignore=ignored)
    shutil.copytree(paths.HANDOUT, folder / "assignment", ignore=ignored)
    shutil.copytree(paths.SOLUTIONS, folder / "solutions", ignore=ignored)
    shutil.copy(paths.RUBRIC, folder / "grading.yml")
    return folder


def _build(tmp_path: Path, *arguments: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``python -m autograder ARGUMENTS build --out OUT`` run from the repository, the course secret
    beside whatever rubric is built (not the suite's fixed one)."""
    out = tmp_path / "dist"
    env = {key: value for key, value in os.environ.items() if key != course_secret.ENVIRONMENT}
    done = subprocess.run(
        [sys.executable, "-m", "autograder", *arguments, "--out", str(out)],
        cwd=paths.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done, out


# id -> (lab folder copied or not, a rubric of the course's own or not)
BUILDS = {
    "a copy of the lab folder": (True, False),
    "a copy of the lab folder, a rubric of the course's own": (True, True),
    "this repository's lab, a rubric of the course's own": (False, True),
}


@pytest.mark.parametrize("build", list(BUILDS), ids=list(BUILDS))
def test_a_lab_folder_and_a_rubric_of_its_own_build(build: str, tmp_path: Path) -> None:
    """Does ``[--lab FOLDER] build [--rubric FILE]`` build (no traceback) an autograder.zip holding
    that lab's package where the shipped grader imports it, without its hidden data, with the rubric
    given as grading.yml and the course secret kept beside that rubric?"""
    copied, own_rubric = BUILDS[build]
    lab = _copy_of_lab05(tmp_path / "lab05-copy") if copied else None
    rubric = (lab or paths.ROOT) / "grading.yml"
    arguments = ["--lab", str(lab)] if lab else []
    arguments.append("build")
    if own_rubric:
        rubric = tmp_path / "course" / "my-grading.yml"
        rubric.parent.mkdir()
        rubric.write_text(paths.RUBRIC.read_text(encoding="utf-8") + "# the course's own copy\n", encoding="utf-8")
        (rubric.parent / course_secret.FILE_NAME).write_text(SECRET + "\n", encoding="utf-8")
        arguments += ["--rubric", str(rubric)]
    done, out = _build(tmp_path, *arguments)
    assert done.returncode == 0, f"build {arguments} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
    with zipfile.ZipFile(out / "autograder.zip") as built:
        names = set(built.namelist())
        assert built.read("grading.yml") == rubric.read_bytes()
        secret = built.read(shipment.HIDDEN + course_secret.FILE_NAME).decode().strip()
        shipped_spec = built.read(shipment.LAB + "spec.py")
    assert secret == (rubric.parent / course_secret.FILE_NAME).read_text(encoding="utf-8").strip()
    assert not any(name.startswith(shipment.LAB + "data/") for name in names), "hidden data in the engine"
    assert shipped_spec == ((lab / "lab") if lab else paths.LAB_PACKAGE).joinpath("spec.py").read_bytes()
    if lab:
        assert not any(str(lab) in name for name in names)


def test_a_missing_rubric_is_refused_with_its_path(tmp_path: Path) -> None:
    """Is ``build --rubric`` of a file that does not exist refused with a message naming it, not a traceback?"""
    missing = tmp_path / "nowhere" / "grading.yml"
    done, _ = _build(tmp_path, "build", "--rubric", str(missing))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert str(missing) in done.stderr
