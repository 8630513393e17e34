"""``tools/commit_subjects.py`` (run by ``make check``): a subject of at most 72 characters, no full
stop, a blank line before the body."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from autograder import paths

TOOL = paths.ROOT / "tools" / "commit_subjects.py"


def _tool():
    spec = importlib.util.spec_from_file_location("commit_subjects", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MESSAGES = [
    pytest.param("Add the run writer's checks\n", [], id="short-subject"),
    pytest.param("Add the run writer's checks\n\nWhy, and the evidence.\n", [], id="subject-and-body"),
    pytest.param("x" * 72 + "\n", [], id="exactly-72"),
    pytest.param("x" * 73 + "\n", ["73 characters"], id="73-characters"),
    pytest.param("Add the checks.\n", ["full stop"], id="full-stop"),
    pytest.param("Add the checks\nand a body glued on\n", ["blank line"], id="no-blank-line"),
    pytest.param("\n\nbody only\n", ["empty"], id="empty-subject"),
]


@pytest.mark.parametrize(("message", "expected"), MESSAGES)
def test_each_rule_of_a_subject(message, expected):
    """Does the checker name exactly the rules a message breaks?"""
    found = _tool().problems(message)
    assert len(found) == len(expected), found
    for problem, words in zip(found, expected):
        assert words in problem


def test_this_repository_s_commits_since_the_rule_keep_it():
    """Do the commits since the rule was adopted all keep it (what ``make check`` runs)?"""
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True).returncode:
        pytest.fail("the tests run from a git checkout (make check reads its history)")
    result = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_long_subject_fails_the_check(tmp_path):
    """Would the check refuse a repository whose newest commit has a 73-character subject?"""
    tool = _tool()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "Start"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "y" * 73], check=True)
    tool.ROOT = tmp_path
    tool.SINCE = subprocess.run([*git, "rev-parse", "HEAD~1"], capture_output=True, text=True).stdout.strip()
    assert tool.main([]) == 1
