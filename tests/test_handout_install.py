"""The handout installs from its requirements.txt, as its README says, in a fresh virtual environment:
on this Python and on Gradescope's 3.10 (where numpy, scikit-learn and matplotlib take their other
pins). The environment then runs the public checks and the libraries the notebook uses.

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
import time
import zipfile

import pytest
from conftest import ARTIFACTS
from packaging.requirements import Requirement

from autograder import paths
from autograder.handout import build as handout
from autograder.lab.spec import GRADED_FILES

pytestmark = [pytest.mark.slow, pytest.mark.cranfield]

#: What the environment must do: the notebook's imports, otter's checks, Cranfield, a search and
#: ir_measures on its run; then it prints each pinned library's version.
SMOKE = """
import importlib.metadata, sys
import matplotlib; matplotlib.use("Agg")
import ir_measures, otter
from ir_measures import AP, nDCG
from lab05 import data, metrics, runs
from lab05.retrieval import search_bm25

grader = otter.Notebook(tests_dir="tests")
print(grader.check("q3"))
queries, qrels = data.load_queries()[:5], data.load_qrels()
runs.write_run("smoke.run", "bm25", search_bm25, queries, k=10)
run = ir_measures.read_trec_run("smoke.run")
scores = ir_measures.calc_aggregate([AP(rel=1), nDCG@10], {q.query_id: qrels[q.query_id] for q in queries}, run)
print("AP", round(scores[AP(rel=1)], 4))
for name in sys.argv[1:-1]:
    print("version", name, importlib.metadata.version(name))
try:
    importlib.metadata.version(sys.argv[-1])
except importlib.metadata.PackageNotFoundError:
    print("missing", sys.argv[-1])
"""


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


#: Installed only by otter's [grading] extra: grader.check must not need it.
GRADING_EXTRA_ONLY = "pypdf"


@pytest.fixture
def scratch(tmp_path):
    """A temporary folder removed afterwards (an environment takes about 1 GB; pytest keeps its
    temporary folders of the last runs)."""
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.parametrize("version", [f"{sys.version_info.major}.{sys.version_info.minor}", "3.10"])
def test_handout_installs_from_its_requirements(cranfield, scratch, version):
    """In a fresh virtual environment, does `pip install -r requirements.txt` give the pinned versions,
    and do the public checks, otter, Cranfield, the given search and ir_measures work there?"""
    python = sys.executable if version == f"{sys.version_info.major}.{sys.version_info.minor}" else _python(version)
    if python is None:  # this project's machines have it (pyenv): its absence is a failure, not a pass
        pytest.fail(
            f"no Python {version} on this machine (python{version} on PATH, or pyenv's): install it "
            f"(e.g. `pyenv install {version}`) to prove the handout installs on Gradescope's Python",
            pytrace=False,
        )
    with zipfile.ZipFile(handout.build(scratch / "handout.zip")) as archive:
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

    checks = run(bin_python, "-m", "pytest", "-p", "no:cacheprovider")
    assert " passed" in checks and "failed" not in checks, checks
    assert run(str(venv / "bin" / "jupyter"), "lab", "--version").strip()

    requirements = (folder / "requirements.txt").read_text(encoding="utf-8")
    assert "otter-grader==" in requirements and "otter-grader[" not in requirements, "otter without its extras"
    pinned = _pins(requirements, version)
    output = run(bin_python, "-c", SMOKE, *pinned, GRADING_EXTRA_ONLY)
    assert f"missing {GRADING_EXTRA_ONLY}" in output, "otter's [grading] extra was installed: check without it"
    assert "q3 results: All test cases passed!" in output, output
    assert "AP " in output, output
    installed = dict(line.split()[1:] for line in output.splitlines() if line.startswith("version "))
    assert installed == pinned
