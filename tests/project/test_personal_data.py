"""Course files holding students' personal data (extensions, rosters, LMS exports and imports,
Gradescope's export) are git-ignored by default; the project's own files are not."""

from __future__ import annotations

import subprocess

import pytest

from autograder import paths

#: id: (a path relative to the repository, whether git must ignore it)
PATHS = {
    "extensions-beside-the-rubric": ("extensions.csv", True),
    "extensions-of-a-lab-folder": ("lab/extensions-fall.csv", True),
    "submission-times": ("times.csv", True),
    "roster": ("roster.csv", True),
    "canvas-gradebook-export": ("canvas-export.csv", True),
    "canvas-import": ("canvas-import.csv", True),
    "blackboard-export": ("gc_export_2026.xls", True),
    "blackboard-import": ("blackboard-import.xls", True),
    "gradescope-export-metadata": ("assignment_123_export/submission_metadata.yml", True),
    "grades-copied-out": ("grades-final.csv", True),
    "the-extensions-module": ("autograder/grading/course/extensions.py", False),
    "the-roster-module": ("autograder/lms/roster.py", False),
    "an-lms-fixture": ("tests/fixtures/lms/blackboard.xls", False),
    "the-golden-grades": ("tests/golden/grades-examples.csv", False),
}


def _ignored(path: str) -> bool:
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", path], cwd=paths.ROOT, capture_output=True, timeout=60
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


@pytest.mark.parametrize("case_id", list(PATHS))
def test_personal_data_is_ignored_and_project_files_are_not(case_id):
    """Is a course file holding personal data git-ignored, and a file of the project not?"""
    path, ignored = PATHS[case_id]
    assert _ignored(path) == ignored, f"{path}: {'not ' if ignored else ''}ignored; see .gitignore"


def test_no_tracked_file_is_ignored():
    """Does no file the repository tracks match an ignore pattern (a pattern too wide would hide
    the next such file from git add)?"""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--ignored", "--exclude-standard"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "", done.stdout
