"""The handout's ``requirements.txt``: the packages students install, pinned to the grader's versions.

The versions are set once, in ``requirements/lab.txt`` (the lab's libraries) and
``requirements/handout.txt`` (the notebook and the public checks); the grader installs from
there. This module pins what they give, for every Python a student may have (``PYTHONS``):

- on the Pythons the installed release supports, the release installed here, in the grader's
  environment (the one the reference was computed with);
- on the others (numpy, scikit-learn and matplotlib have dropped Python 3.10, Gradescope's),
  the release pip resolves from the same requirement for that Python: what the grader installs
  there;
- except the packages graded code may import (``requirements/child.txt``, the children's
  environment): those are pinned on every Python at exactly the release graded code runs with,
  so what a student's code does at home is what it does when graded (numpy 2's ``np.trapezoid``
  would work at home and fail under the children's numpy 1.26).

``python -m autograder requirements`` writes the file (it asks pip, so it needs the package
index); ``tests/handout/test_handout_requirements.py`` proves the committed file pins what is installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from autograder import paths
from autograder.errors import InputError, SetupError

#: The Pythons a student may install the handout on (Gradescope's grader runs 3.10).
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
#: The requirement files whose packages the handout needs.
SOURCES = ("lab.txt", "handout.txt")
#: The children's environment: the versions graded code runs with, which the handout pins exactly.
GRADED = "child.txt"
TARGET = paths.HANDOUT / "requirements.txt"
HEADER = (
    "# Lab 05's packages, at the versions the autograder uses. In a virtual environment (README.md):\n"
    "#     pip install -r requirements.txt\n"
)

#: ``(requirements, python) -> {canonical name: version}``: what pip would install for that Python.
Resolver = Callable[[list[Requirement], str], dict[str, str]]


@dataclass(frozen=True)
class Pin:
    """One line of the file: ``requirement`` at ``version`` on the Pythons ``pythons``."""

    requirement: Requirement
    version: str
    pythons: tuple[str, ...]

    def line(self) -> str:
        extras = f"[{','.join(sorted(self.requirement.extras))}]" if self.requirement.extras else ""
        text = f"{self.requirement.name}{extras}=={self.version}"
        marker = python_marker(self.pythons)
        return f"{text}; {marker}" if marker else text


def declared(sources: Iterable[str] = SOURCES) -> list[Requirement]:
    """The requirements of ``requirements/<source>`` for each source, in order, comments left out."""
    found = []
    for source in sources:
        path = paths.REQUIREMENTS / source
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                found.append(Requirement(line))
            except ValueError as error:
                raise InputError(f"requirements/{source}:{number}: {line!r} is not a requirement ({error})") from None
    return found


def graded(source: str = GRADED) -> dict[str, str]:
    """``{canonical name: version}`` of the packages graded code runs with (``requirements/<source>``,
    each pinned with ``==``)."""
    found: dict[str, str] = {}
    for requirement in declared((source,)):
        versions = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        if len(versions) != 1 or len(requirement.specifier) != 1:
            raise InputError(
                f"requirements/{source}: {requirement} must pin one release with == (the version graded code "
                f"runs with), e.g. {requirement.name}==1.26.4"
            )
        found[canonicalize_name(requirement.name)] = versions[0]
    return found


def python_marker(pythons: tuple[str, ...]) -> str:
    """The environment marker selecting ``pythons``, a run of consecutive ``PYTHONS`` ("" for all):
    the first serves every older Python and the last every newer one."""
    first, last = PYTHONS.index(pythons[0]), PYTHONS.index(pythons[-1])
    if pythons != PYTHONS[first : last + 1]:
        raise ValueError(f"{pythons} are not consecutive in {PYTHONS}")
    bounds = []
    if first > 0:
        bounds.append(f'python_version >= "{pythons[0]}"')
    if last < len(PYTHONS) - 1:
        bounds.append(f'python_version < "{PYTHONS[last + 1]}"')
    return " and ".join(bounds)


def serves(requires_python: str | None, python: str) -> bool:
    """Whether a release whose ``Requires-Python`` is ``requires_python`` installs on ``python``."""
    return not requires_python or SpecifierSet(requires_python).contains(f"{python}.0", prereleases=True)


def installed(requirement: Requirement) -> tuple[str, str | None]:
    """``(version, Requires-Python)`` of the release of ``requirement`` installed here."""
    try:
        distribution = metadata.distribution(requirement.name)
    except metadata.PackageNotFoundError:
        raise SetupError(
            f"{requirement.name} is not installed in {sys.prefix}: run `make setup` (it installs "
            "requirements/*.txt) before writing the handout's requirements"
        ) from None
    requires_python = distribution.metadata.get_all("Requires-Python") or [None]
    return distribution.version, requires_python[0]


def pip_resolve(requirements: list[Requirement], python: str) -> dict[str, str]:
    """What pip would install from ``requirements`` on ``python`` (wheels only, nothing installed),
    asking the package index a student's pip asks (``--isolated``: no local configuration, whose
    mirrors or wheel folders may not say which Pythons a release supports): pip keeps to the
    releases whose Requires-Python admits ``python``, and any other is refused."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check", "install", "--dry-run"]
        command += ["--ignore-installed", "--quiet"]
        command += ["--target", str(Path(scratch) / "target"), "--python-version", python, "--only-binary=:all:"]
        command += ["--report", str(report), *map(str, requirements)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "ERROR" in line] or done.stderr.splitlines()[-3:]
            asked = ", ".join(map(str, requirements))
            raise SetupError(f"pip cannot resolve {asked} for Python {python}: {' '.join(errors)[:400]}")
        chosen = json.loads(report.read_text(encoding="utf-8"))["install"]
    for item in chosen:
        if not serves(item["metadata"].get("requires_python"), python):
            name, version = item["metadata"]["name"], item["metadata"]["version"]
            raise SetupError(
                f"pip chose {name} {version} for Python {python}, which requires Python "
                f"{item['metadata']['requires_python']} (the index pip reached does not say which Pythons its releases "
                "support): run `python -m autograder requirements` where pip reaches PyPI"
            )
    return {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"] for item in chosen}


def pins(
    requirements: list[Requirement],
    release: Callable[[Requirement], tuple[str, str | None]] = installed,
    resolve: Resolver = pip_resolve,
    graded_versions: dict[str, str] | None = None,
) -> list[Pin]:
    """Each requirement pinned on every Python of ``PYTHONS``: the version of ``graded_versions``
    (``{canonical name: version}``, the children's environment) for a package graded code runs
    with, else the ``release`` installed here where it serves, else what ``resolve`` gives for that
    Python (one call per Python)."""
    graded_versions = graded_versions or {}
    version_on: dict[str, dict[str, str]] = {}  # canonical name -> python -> version
    missing: dict[str, list[Requirement]] = {}  # python -> the requirements the installed release misses
    for requirement in requirements:
        name = canonicalize_name(requirement.name)
        if name in graded_versions:
            if not requirement.specifier.contains(graded_versions[name], prereleases=True):
                raise InputError(
                    f"{requirement.name} {graded_versions[name]}, the version graded code runs with "
                    f"(requirements/{GRADED}), is outside {requirement} (requirements/): make them agree"
                )
            version_on[name] = dict.fromkeys(PYTHONS, graded_versions[name])
            continue
        version, requires_python = release(requirement)
        version_on[name] = {}
        for python in PYTHONS:
            if serves(requires_python, python):
                version_on[name][python] = version
            else:
                missing.setdefault(python, []).append(requirement)
    for python, unserved in missing.items():
        resolved = resolve(unserved, python)
        for requirement in unserved:
            name = canonicalize_name(requirement.name)
            if name not in resolved:
                raise SetupError(f"no release of {requirement.name} was found for Python {python}")
            if not requirement.specifier.contains(resolved[name], prereleases=True):
                raise InputError(
                    f"{requirement.name} {resolved[name]}, the release for Python {python}, is outside "
                    f"{requirement} (requirements/)"
                )
            version_on[name][python] = resolved[name]
    found = []
    for requirement in requirements:
        runs: list[tuple[str, list[str]]] = []  # (version, its consecutive Pythons)
        for python in PYTHONS:
            version = version_on[canonicalize_name(requirement.name)][python]
            if runs and runs[-1][0] == version:
                runs[-1][1].append(python)
            else:
                runs.append((version, [python]))
        found += [Pin(requirement, version, tuple(pythons)) for version, pythons in runs]
    return sorted(found, key=lambda pin: (canonicalize_name(pin.requirement.name), PYTHONS.index(pin.pythons[0])))


def render(found: list[Pin]) -> str:
    return HEADER + "".join(pin.line() + "\n" for pin in found)


def write(target: Path = TARGET) -> Path:
    """Write the handout's ``requirements.txt`` from ``requirements/`` and this environment."""
    text = render(pins(declared(), graded_versions=graded()))
    target.write_text(text, encoding="utf-8")
    return target


def pinned_in(text: str) -> Resolver:
    """A resolver that answers with the pins of a written ``requirements.txt`` (what a test checks
    the committed file against, without asking pip)."""
    written = [Requirement(line) for line in (raw.split("#", 1)[0].strip() for raw in text.splitlines()) if line]

    def resolve(requirements: list[Requirement], python: str) -> dict[str, str]:
        environment = {"python_version": python, "python_full_version": f"{python}.0"}
        found: dict[str, str] = {}
        for pin in written:
            versions = [spec.version for spec in pin.specifier if spec.operator == "=="]
            if versions and (pin.marker is None or pin.marker.evaluate(environment)):
                found[canonicalize_name(pin.name)] = versions[0]
        return found

    return resolve
