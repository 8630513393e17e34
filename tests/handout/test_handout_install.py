"""The handout installs from its requirements.txt, as its README says, in a fresh virtual environment:
on this Python and on Gradescope's 3.10 (where numpy, scikit-learn, matplotlib and ipykernel take their
other pins). Without otter-grader: the environment then runs the public checks with pytest, the whole
notebook in its own kernel (every grader.check passing with the solutions), a check that fails with a
wrong function, and holds each pinned version.

pip installs from this machine's configured index, mirror and wheel cache, as a student's pip
installs from PyPI. Each run quotes the install's time and the environment's size (printed, and
kept in test-artifacts/handout-install-<python>.txt): figures to read, not limits to pass.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile

import nbformat
import pytest
from packaging.requirements import Requirement

from autograder import paths
from autograder.handout import build as handout
from autograder.lab.spec import GRADED_FILES
from autograder.labkit.load import default as default_lab
from tests.conftest import ARTIFACTS
from tests.support import buggy, notebook_run

pytestmark = [pytest.mark.slow, pytest.mark.cranfield]

#: Prints each pinned library's version, then whether otter-grader is there (it must not be).
VERSIONS = """
import importlib.metadata, importlib.util, sys
for name in sys.argv[1:]:
    print("version", name, importlib.metadata.version(name))
print("otter", "found" if importlib.util.find_spec("otter") else "missing")
"""

#: The notebook's way to the checks, then q2's check on a wrong precision_at_k, and q3's.
WRONG_CHECK = """
import sys
sys.path.insert(0, "tests")
from checks import grader
print(repr(grader.check("q2")))
print(repr(grader.check("q3")))
"""

#: P@k that divides by the ranking's length when it is shorter than k: wrong on one q2 case only.
WRONG_PRECISION = next(bug for bug in buggy.BUGS if bug.id == "p-over-ranking-length")

#: Injected before the notebook's first cell: which interpreter the kernel runs.
PROBE = "import sys\nprint(sys.prefix)"


#: The README's install command; --no-compile writes no .pyc files up front (a third of the time;
#: Python writes them as it imports).
PIP_INSTALL = ("-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check")


def _python(version: str) -> str | None:
    """An interpreter of ``version`` that runs: on PATH, or one pyenv installed."""
    pattern = os.path.join(os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv")), "versions", f"{version}.*")
    candidates = [shutil.which(f"python{version}")] + [
        os.path.join(folder, "bin", f"python{version}") for folder in sorted(glob.glob(pattern))
    ]
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "import venv, sys; print(sys.version)"], capture_output=True)
        if done.returncode == 0:
            return candidate
    return None


def _pins(text: str, python: str) -> dict[str, str]:
    """The versions the handout's requirements.txt pins on ``python``."""
    found = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            pin = Requirement(line)
            if pin.marker is None or pin.marker.evaluate({"python_version": python, "python_full_version": python}):
                found[pin.name] = next(iter(pin.specifier)).version
    return found


def _size_mb(folder) -> float:
    """The bytes of the files under ``folder`` (links not followed), in MB."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total / 1e6


@pytest.fixture
def scratch(tmp_path):
    """A temporary folder removed afterwards (an environment takes about 400 MB; pytest keeps its
    temporary folders of the last runs)."""
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.parametrize("version", [f"{sys.version_info.major}.{sys.version_info.minor}", "3.10"])
def test_handout_installs_from_its_requirements(cranfield, scratch, version):
    """In a fresh virtual environment, does `pip install -r requirements.txt` give the pinned versions
    without otter-grader, and do the public checks (pytest and grader.check), the whole notebook in
    the environment's own kernel, Cranfield, the given search and ir_measures work there?"""
    python = sys.executable if version == f"{sys.version_info.major}.{sys.version_info.minor}" else _python(version)
    if python is None:  # this project's machines have it (pyenv): its absence is a failure, not a pass
        pytest.fail(
            f"no Python {version} on this machine (python{version} on PATH, or pyenv's): install it "
            f"(e.g. `pyenv install {version}`) to prove the handout installs on Gradescope's Python",
            pytrace=False,
        )
    with zipfile.ZipFile(handout.build(default_lab(), scratch / "handout.zip")) as archive:
        archive.extractall(scratch)
    folder = scratch / "lab05-handout"
    for name in GRADED_FILES:
        shutil.copyfile(paths.solution_file(name), folder / "lab05" / name)
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def run(*command, timeout=900):
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=environment, timeout=timeout)
        assert done.returncode == 0, f"{' '.join(map(str, command))}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    venv = scratch / "venv"
    run(python, "-m", "venv", str(venv))
    bin_python = str(venv / "bin" / "python")
    started = time.monotonic()
    run(bin_python, *PIP_INSTALL, "-r", "requirements.txt")
    seconds, size = time.monotonic() - started, _size_mb(venv)
    figures = (
        f"Python {version}: pip install -r requirements.txt took {seconds:.0f} s; the environment is {size:.0f} MB"
    )
    print(figures)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"handout-install-{version}.txt").write_text(figures + "\n", encoding="utf-8")
    run(bin_python, "-m", "pip", "check")

    requirements = (folder / "requirements.txt").read_text(encoding="utf-8")
    assert "otter" not in requirements.lower(), "the handout's requirements name otter"
    pinned = _pins(requirements, version)
    output = run(bin_python, "-c", VERSIONS, *pinned)
    assert "otter missing" in output, "otter-grader was installed: the handout must not need it"
    installed = dict(line.split()[1:] for line in output.splitlines() if line.startswith("version "))
    assert installed == pinned

    checks = run(bin_python, "-m", "pytest", "-p", "no:cacheprovider")
    assert " passed" in checks and "failed" not in checks, checks

    notebook = nbformat.read(folder / "lab05.ipynb", as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(PROBE, id="probe"))
    error = notebook_run.execute(notebook, folder, scratch / "kernels", bin_python)
    assert error is None, f"the notebook failed in the fresh environment:\n{error}"
    assert os.path.realpath(notebook_run.cell_text(notebook, "probe").strip()) == os.path.realpath(venv)
    for question in ("q1", "q2", "q3", "q4", "q5", "q6"):
        shown = notebook_run.cell_text(notebook, f"check-{question}").strip()
        assert shown == f"{question} results: All test cases passed!", shown
    assert "all values agree with ir_measures" in notebook_run.cell_text(notebook, "cranfield-own")

    with open(folder / "lab05" / "metrics.py", "a", encoding="utf-8") as metrics:
        metrics.write("\n\n" + textwrap.dedent(WRONG_PRECISION.source))
    shown = run(bin_python, "-c", WRONG_CHECK)
    assert "q2 results:\n    1 of 14 cases failed, 13 passed; the failed ones:\n" in shown, shown
    assert "returned 0.6, expected 0.3 (3/10). Hint: P@10 divides by k = 10" in shown, shown
    assert "q3 results: All test cases passed!" in shown, shown
