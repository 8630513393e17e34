"""The handout's requirements.txt pins the grader's versions on every Python a student may have.

The committed file is checked against this environment (the grader's versions, installed from
``requirements/``) without asking pip: the pins for the Pythons the installed releases do not
support are taken from the committed file itself, and must still satisfy ``requirements/``.
How pins become lines is checked on small worked examples with a stand-in for pip.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.handout import requirements
from autograder.handout.requirements import PYTHONS


def test_committed_file_pins_the_graders_versions():
    """Is assignment/requirements.txt what `python -m autograder requirements` writes from
    requirements/lab.txt and handout.txt and the versions installed here?"""
    committed = requirements.TARGET.read_text(encoding="utf-8")
    expected = requirements.render(
        requirements.pins(
            requirements.declared(),
            resolve=requirements.pinned_in(committed),
            graded_versions=requirements.graded(),
        )
    )
    assert committed == expected, (
        "assignment/requirements.txt differs from the grader's versions (requirements/*.txt as installed "
        "here): run `.venv/bin/python -m autograder requirements`"
    )


def test_committed_file_pins_every_lab_library_once_per_python():
    """Does every package of requirements/lab.txt and handout.txt have exactly one == pin on each Python?"""
    written = [
        Requirement(line)
        for line in requirements.TARGET.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    names = {requirement.name for requirement in requirements.declared()}
    assert {"ir_measures", "ir_datasets", "numpy", "scikit-learn", "rank_bm25", "matplotlib", "ipykernel"} <= names
    assert not {name for name in names if "otter" in name or "jupyterlab" in name}, "the handout needs neither"
    for python in PYTHONS:
        active = [
            pin
            for pin in written
            if pin.marker is None or pin.marker.evaluate({"python_version": python, "python_full_version": python})
        ]
        assert sorted(pin.name for pin in active) == sorted(names), python
        assert all(len(pin.specifier) == 1 and next(iter(pin.specifier)).operator == "==" for pin in active)


@dataclass(frozen=True)
class PinCase:
    id: str
    requirement: str
    installed: str  # version
    requires_python: str | None  # of the installed release
    resolved: dict  # python -> the version pip would choose there
    lines: list


PIN_CASES = [
    PinCase("serves-every-python", "rank_bm25==0.2.2", "0.2.2", None, {}, ["rank_bm25==0.2.2"]),
    PinCase("requires-python-admits-all", "ir_measures==0.4.3", "0.4.3", ">=3.9", {}, ["ir_measures==0.4.3"]),
    PinCase(
        "dropped-3.10",
        "numpy>=1.24",
        "2.4.6",
        ">=3.11",
        {"3.10": "2.2.6"},
        ['numpy==2.2.6; python_version < "3.11"', 'numpy==2.4.6; python_version >= "3.11"'],
    ),
    PinCase(
        "dropped-two-pythons-same-fallback",
        "scikit-learn>=1.2",
        "1.9.1",
        ">=3.12",
        {"3.10": "1.7.2", "3.11": "1.7.2"},
        ['scikit-learn==1.7.2; python_version < "3.12"', 'scikit-learn==1.9.1; python_version >= "3.12"'],
    ),
    PinCase(
        "dropped-two-pythons-two-fallbacks",
        "scipy>=1.8",
        "1.17.1",
        ">=3.12",
        {"3.10": "1.15.3", "3.11": "1.16.2"},
        [
            'scipy==1.15.3; python_version < "3.11"',
            'scipy==1.16.2; python_version >= "3.11" and python_version < "3.12"',
            'scipy==1.17.1; python_version >= "3.12"',
        ],
    ),
    PinCase("extras-kept", "otter-grader[grading]>=5", "7.0.0", ">=3.10,<4.0", {}, ["otter-grader[grading]==7.0.0"]),
]


@pytest.mark.parametrize("case", PIN_CASES, ids=[case.id for case in PIN_CASES])
def test_pins_per_python(case):
    """Is the installed release pinned where it installs, and pip's choice for the other Pythons, with
    markers that select exactly one line on each Python?"""
    asked = []

    def resolve(unserved, python):
        asked.append(python)
        return {canonicalize_name(unserved[0].name): case.resolved[python]}

    found = requirements.pins(
        [Requirement(case.requirement)], release=lambda _: (case.installed, case.requires_python), resolve=resolve
    )
    assert [pin.line() for pin in found] == case.lines
    assert asked == sorted(case.resolved)


def test_fallback_outside_the_declared_versions_is_refused():
    """Is a release for another Python that requirements/ does not allow a ValueError naming both?"""
    with pytest.raises(ValueError, match=r"ir_measures 0\.4\.2, the release for Python 3\.10, is outside ir_measures"):
        requirements.pins(
            [Requirement("ir_measures==0.4.3")],
            release=lambda _: ("0.4.3", ">=3.11"),
            resolve=lambda unserved, python: {"ir-measures": "0.4.2"},
        )


@pytest.mark.parametrize(
    ("pythons", "marker"),
    [
        (PYTHONS, ""),
        (("3.10",), 'python_version < "3.11"'),
        (("3.11", "3.12"), 'python_version >= "3.11" and python_version < "3.13"'),
        (PYTHONS[1:], 'python_version >= "3.11"'),
    ],
    ids=["all", "oldest", "middle", "newest"],
)
def test_python_marker(pythons, marker):
    """Does a run of Pythons become the marker that selects it (the oldest serving older ones too)?"""
    assert requirements.python_marker(pythons) == marker


def test_handout_pins_every_graded_package_at_the_childrens_version():
    """Does assignment/requirements.txt pin each package of requirements/child.txt (what graded code
    runs with, e.g. numpy) at exactly the children's version, on every Python a student may have?"""
    graded = requirements.graded()
    assert "numpy" in graded, "requirements/child.txt no longer pins numpy: which numpy is graded?"
    written = requirements.pinned_in(requirements.TARGET.read_text(encoding="utf-8"))
    for python in PYTHONS:
        handout = written([], python)
        for name, version in graded.items():
            assert handout.get(name) == version, (
                f"assignment/requirements.txt pins {name} {handout.get(name)} for Python {python}, but graded code "
                f"runs with {name} {version} (requirements/child.txt): "
                "run `.venv/bin/python -m autograder requirements`"
            )


@dataclass(frozen=True)
class GradedCase:
    id: str
    requirement: str
    installed: str  # the grader's release, which a graded package does not use
    graded: dict  # canonical name -> the children's version
    lines: list


GRADED_CASES = [
    GradedCase("graded-overrides-installed", "numpy>=1.24", "2.4.6", {"numpy": "1.26.4"}, ["numpy==1.26.4"]),
    GradedCase("ungraded-keeps-installed", "rank_bm25==0.2.2", "0.2.2", {"numpy": "1.26.4"}, ["rank_bm25==0.2.2"]),
    GradedCase("name-canonicalised", "Scikit_Learn>=1.2", "1.9.1", {"scikit-learn": "1.7.2"}, ["Scikit_Learn==1.7.2"]),
]


@pytest.mark.parametrize("case", GRADED_CASES, ids=[case.id for case in GRADED_CASES])
def test_graded_package_pinned_at_the_graded_version(case):
    """Is a package graded code runs with pinned at the children's version on every Python, without
    asking pip, while the others keep the grader's release?"""

    def resolve(unserved, python):
        raise AssertionError(f"pip was asked for {unserved} on {python}")

    found = requirements.pins(
        [Requirement(case.requirement)],
        release=lambda _: (case.installed, None),
        resolve=resolve,
        graded_versions=case.graded,
    )
    assert [pin.line() for pin in found] == case.lines


def test_graded_version_outside_the_declared_versions_is_refused():
    """Is a children's version that requirements/lab.txt does not allow a ValueError naming both files?"""
    with pytest.raises(
        ValueError,
        match=r"numpy 1\.26\.4, the version graded code runs with \(requirements/child\.txt\), is outside numpy>=2",
    ):
        requirements.pins([Requirement("numpy>=2")], graded_versions={"numpy": "1.26.4"})


def test_graded_requirement_without_one_pin_is_refused(tmp_path, monkeypatch):
    """Is a child.txt line that does not pin one release with == a ValueError naming the file and the fix?"""
    (tmp_path / "child.txt").write_text("numpy>=1.26\n", encoding="utf-8")
    monkeypatch.setattr(requirements.paths, "REQUIREMENTS", tmp_path)
    with pytest.raises(ValueError, match=r"requirements/child\.txt: numpy>=1\.26 must pin one release with =="):
        requirements.graded()
