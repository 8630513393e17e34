"""The course section of the handout's README.md, rendered from grading.yml for the platform built
for (``platforms/common/handout_readme.py``): the deadline, the attempts, where to submit, what
graded code may import and the versions graded."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.errors import InputError
from autograder.grading import rubric as rubrics
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import handout_readme

LAB = default_lab()
DEADLINE = "deadline:\n  due: 2026-12-05 23:59\n  timezone: America/Chicago\n  penalty: 10\n  per: day\n  cap: 50\n"
ATTEMPTS = "attempts: {per_period: 3, period_hours: 24, total: 10}\n"

#: id: (platform, what grading.yml adds, phrases the section must hold, phrases it must not)
SECTIONS = {
    "gradescope-no-deadline-no-limit": (
        "gradescope",
        "",
        ["your instructor gives the due date", "no limit on graded attempts", "on Gradescope, or a zip"],
        ["PrairieLearn", "% of the points"],
    ),
    "gradescope-deadline-and-attempts": (
        "gradescope",
        DEADLINE + ATTEMPTS,
        ["due 2026-12-05 23:59 UTC-06:00", "10% of the points per started day late, at most 50%",
         "3 graded attempts in any 24 hours, 10 in all", "on Gradescope"],
        ["PrairieLearn", "no limit"],
    ),
    "prairielearn-deadline-and-attempts": (
        "prairielearn",
        DEADLINE + ATTEMPTS,
        ["the dates of the lab's assessment on PrairieLearn", "one graded submission every 480 minutes",
         "to the lab's question on PrairieLearn"],
        ["Gradescope", "10 in all", "% of the points", "a zip"],
    ),
    "prairielearn-no-limit": ("prairielearn", "", ["no limit on graded attempts"], ["Gradescope"]),
}  # fmt: skip


def _rubric(tmp_path: Path, added: str) -> rubrics.Rubric:
    path = tmp_path / "grading.yml"
    path.write_text(LAB.place.rubric.read_text(encoding="utf-8") + "\n" + added, encoding="utf-8")
    return rubrics.load(path, LAB)


@pytest.mark.parametrize("case_id", list(SECTIONS))
def test_the_section_says_what_applies_on_the_platform(case_id, tmp_path):
    """Does the section give the deadline and attempts grading.yml sets as the platform applies
    them, where to submit there, and nothing of the other platform?"""
    platform, added, present, absent = SECTIONS[case_id]
    text = handout_readme.section(_rubric(tmp_path, added), platform, LAB, {"numpy": "1.26.4"})
    for phrase in present:
        assert phrase in text, (phrase, text)
    for phrase in absent:
        assert phrase not in text, (phrase, text)


#: id: (the children's pins, the words the import line must hold)
PINS = {
    "pinned": ({"numpy": "1.26.4"}, "Python's standard library and `numpy` 1.26.4, nothing else"),
    "another-pin": ({"numpy": "2.1.0"}, "`numpy` 2.1.0"),
    "not-pinned": ({}, "Python's standard library and `numpy`, nothing else"),
}


@pytest.mark.parametrize("case_id", list(PINS))
def test_the_versions_graded_are_the_childrens_pins(case_id, tmp_path):
    """Does the section name what graded code may import at the version the children run (their
    pins), and say the handout's other pins are not the grader's?"""
    pins, words = PINS[case_id]
    text = handout_readme.section(_rubric(tmp_path, ""), "gradescope", LAB, pins)
    assert words in text
    assert "the grader does not run them on your code" in text


def test_the_committed_readme_is_rendered_for_gradescope():
    """Is assignment/README.md's course section what grading.yml gives today (run
    `python -m autograder handout-readme` if not)?"""
    path = LAB.place.handout / "README.md"
    assert path.read_text(encoding="utf-8") == handout_readme.expected(LAB, "gradescope")


def test_an_unknown_platform_and_a_readme_without_markers_are_refused(tmp_path):
    """Is a platform the section does not know, or a README without its markers, a clear error?"""
    rubric = _rubric(tmp_path, "")
    with pytest.raises(InputError, match="no platform 'moodle'; use one of gradescope, prairielearn"):
        handout_readme.section(rubric, "moodle", LAB, {})
    with pytest.raises(InputError, match="no course section"):
        handout_readme.render("# a README\n", rubric, "gradescope", LAB, {})


@pytest.mark.cranfield
def test_the_prairielearn_build_gives_a_handout_saying_prairielearn(tmp_path, cranfield):
    """Does `build --target prairielearn` write handout.zip whose README says to submit on
    PrairieLearn and never Gradescope?"""
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "build", "--target", "prairielearn", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    with zipfile.ZipFile(tmp_path / "handout.zip") as archive:
        readme = archive.read(f"{LAB.package}-handout/README.md").decode()
    assert "to the lab's question on PrairieLearn" in readme
    assert "Gradescope" not in readme
