"""Public check: your environment has the versions of the packages your graded code runs with.

The autograder runs ``lab05/metrics.py`` and ``lab05/runs.py`` with the versions below
(``requirements.txt`` installs exactly these). With another release, code that works at home can
fail when graded: numpy 2's ``np.trapezoid``, for one, does not exist in numpy 1.26.
"""

from importlib import metadata

import pytest

GRADED_VERSIONS = {"numpy": "1.26.4"}  # what graded code imports, at the versions the autograder has


def difference(name: str, graded: str, installed) -> str:
    """What is wrong with ``installed`` (a version, or None if missing) where ``graded`` is graded
    ("" when its major.minor is the graded one's), and what to do."""
    if installed is None:
        return f"{name} is not installed, and your code is graded with {name} {graded}"
    if installed.split(".")[:2] != graded.split(".")[:2]:
        return f"you have {name} {installed}, but your code is graded with {name} {graded}"
    return ""


@pytest.mark.parametrize("name", sorted(GRADED_VERSIONS))
def test_graded_versions_installed(name):
    """Is each package your graded code may import installed at the version the autograder grades with?"""
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        installed = None
    wrong = difference(name, GRADED_VERSIONS[name], installed)
    if wrong:
        pytest.fail(
            f"{wrong}: what works here may fail when graded. In this folder's virtual environment, run "
            "`pip install -r requirements.txt` (README.md, Set up; on Python 3.13 or newer, create the "
            "environment with Python 3.12).",
            pytrace=False,
        )
