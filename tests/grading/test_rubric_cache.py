"""The validated rubric kept in the cache (autograder/grading/rubric.py, ``parse``): a grade of an
unchanged rubric reads it back without importing YAML or the schema's pydantic; a change of the text
is a miss; an invalid rubric is never kept."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder import paths
from autograder.grading import rubric
from autograder.labkit.load import default as default_lab

BASE = paths.RUBRIC.read_text(encoding="utf-8")

#: id -> (the text parsed after BASE, the title and random cases read back, the entries then kept)
CHANGES = {
    "the same text": (BASE, "Lab 05: Evaluating IR Systems", 40, 1),
    "another title": (
        BASE.replace('\ntitle: "Lab 05', '\ntitle: "Lab 5 again', 1),
        "Lab 5 again: Evaluating IR Systems",
        40,
        2,
    ),
    "fewer random cases": (
        BASE.replace("\nrandom_cases: 40", "\nrandom_cases: 7", 1),
        "Lab 05: Evaluating IR Systems",
        7,
        2,
    ),
}

#: What a second process prints after parsing the rubric the first one kept: the modules it loaded.
SECOND = """
import sys
from autograder.grading import rubric
from autograder.labkit.load import default
parsed = rubric.parse(open(sys.argv[1], encoding="utf-8").read(), lab=default())
print(parsed.title, sorted({name.split(".")[0] for name in sys.modules} & {"pydantic", "yaml"}))
"""


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("case", CHANGES.values(), ids=CHANGES.keys())
def test_a_rubric_read_back_is_the_one_its_text_says(private_cache, case):
    """Is the rubric parsed a second time (from the cache) equal to the first, and is a changed text
    a miss that gives the changed rubric, never the one kept before?"""
    text, title, random_cases, entries = case
    rubric.parse(BASE, lab=default_lab())
    again = rubric.parse(text, lab=default_lab())
    assert (again.title, again.random_cases) == (title, random_cases)
    assert again == rubric._validated(text, "grading.yml", default_lab())
    assert len(list(private_cache.glob("rubric-*.pickle"))) == entries


def test_an_invalid_rubric_is_refused_every_time(private_cache):
    """Is an invalid rubric refused on the second parse too (never kept in the cache)?"""
    text = BASE.replace("\ntotal: 100", "\ntotal: -1", 1)
    for _ in range(2):
        with pytest.raises(rubric.RubricError, match="total"):
            rubric.parse(text, lab=default_lab())
    assert list(private_cache.glob("rubric-*.pickle")) == []


def test_a_kept_rubric_is_read_without_yaml_or_pydantic(private_cache, tmp_path):
    """Does a process that parses a rubric kept by an earlier one import neither yaml nor pydantic,
    while the first (which validates it) imports both?"""
    path = tmp_path / "grading.yml"
    path.write_text(BASE, encoding="utf-8")
    runs = [
        subprocess.run(
            [sys.executable, "-c", SECOND, str(path)], capture_output=True, text=True, check=True, cwd=paths.ROOT
        ).stdout.strip()
        for _ in range(2)
    ]
    title = "Lab 05: Evaluating IR Systems"
    assert runs == [f"{title} ['pydantic', 'yaml']", f"{title} []"]
