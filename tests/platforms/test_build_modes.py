"""What a build writes on the instructor's disk: what holds the answers (autograder.zip, the
PrairieLearn question's hidden tests) owner-only, like a batch's out/; the students' handout not."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from autograder.handout import build as handout
from autograder.labkit.load import default as default_lab
from autograder.platforms.gradescope import build as gradescope
from autograder.platforms.prairielearn import build as prairielearn

pytestmark = [pytest.mark.cranfield, pytest.mark.slow]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_autograder_zip_is_owner_only_and_the_handout_is_not(tmp_path: Path) -> None:
    """Is autograder.zip (it holds the answers) written 0600, and handout.zip (for students) 0644?"""
    built = gradescope.build(tmp_path / "autograder.zip", default_lab())
    given = handout.build(default_lab(), tmp_path / "handout.zip")
    assert (oct(_mode(built)), oct(_mode(given))) == (oct(0o600), oct(0o644))


def test_prairielearn_hidden_tests_are_owner_only(tmp_path: Path) -> None:
    """Are the PrairieLearn question's hidden tests (reference, secret, answer code) owner-only: every
    file 0600 and every folder 0700, while the question's public files stay readable?"""
    folders = prairielearn.build(tmp_path, default_lab())
    hidden = folders["question"] / prairielearn.HIDDEN
    files = [path for path in hidden.rglob("*") if path.is_file()]
    dirs = [hidden, *(path for path in hidden.rglob("*") if path.is_dir())]
    assert len(files) > 5, f"the hidden tests hold {len(files)} files"
    loose = [f"{path} {oct(_mode(path))}" for path in files if _mode(path) != 0o600]
    loose += [f"{path} {oct(_mode(path))}" for path in dirs if _mode(path) != 0o700]
    assert not loose, f"readable by others: {loose[:5]}"
    assert _mode(folders["question"] / "info.json") == 0o644
