"""One grade whatever runs beside it: a class graded alone, and the same class graded twice at the
same time while a batch of hostile submissions grades beside them (three graders on one machine,
each leasing its own sandbox uids), give byte-identical results.json, feedback and grades.csv
(the random cases drawn from one ``--seed``, so the batches can be compared)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from tests.support import attacks, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

SEED = "same-everywhere"
MODES = {"jail": [], "uid": ["--child-python", "/usr/bin/python3"]}
COMPARED = ("results.json", "feedback.md", "feedback.html")


def _class(folder: Path) -> Path:
    shutil.copytree(paths.ROOT / "examples" / "submissions", folder)
    subs.write(folder / "zz-correct", {})
    return folder


def _grade(inbox: Path, out: Path, mode: str, rubric: Path, seed: str | None = SEED) -> subprocess.Popen:
    command = [sys.executable, "-m", "autograder", "grade", str(inbox), "--out", str(out), "--jobs", "2"]
    command += ["--isolation", mode, "--rubric", str(rubric), *MODES[mode]]
    command += ["--seed", seed] if seed else []
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _outputs(out: Path) -> dict:
    found = {"grades.csv": (out / "grades.csv").read_bytes()}
    for folder in sorted((out / "submissions").iterdir()):
        for name in COMPARED:
            found[f"{folder.name}/{name}"] = (folder / name).read_bytes()
    return found


@pytest.fixture(scope="module", params=list(MODES))
def alone(request, tmp_path_factory, cranfield):
    """The class graded alone in one mode, once for the tests that compare with it (its grades do
    not change with what runs later): (mode, its class, its rubric, {file: bytes})."""
    mode = request.param
    folder = tmp_path_factory.mktemp(f"alone-{mode}")
    inbox = _class(folder / "class")
    rubric = subs.test_rubric(folder)
    graded = _grade(inbox, folder / "alone", mode, rubric)
    assert graded.wait(timeout=600) == 0, graded.stderr.read()[-2000:]
    return mode, inbox, rubric, _outputs(folder / "alone")


@pytest.mark.parametrize("repeat", range(2))
def test_two_batches_and_hostile_neighbours_give_the_grade_of_a_batch_alone(alone, repeat, tmp_path):
    """Graded alone, then twice at once beside a hostile batch: are every student file and
    grades.csv byte for byte the same, in the jail and in the uid mode, every time (each repeat
    grades the class twice at once again; the class graded alone is the module's, graded once per
    mode)?"""
    mode, inbox, rubric, expected = alone
    hostile = tmp_path / "hostile"
    attacks.thread_spinners(hostile / "spinners")
    attacks.process_spinners(hostile / "processes")
    attacks.orphans(hostile / "orphans")
    running = [_grade(inbox, tmp_path / f"together-{n}", mode, rubric) for n in range(2)]
    running.append(_grade(hostile, tmp_path / "hostile-out", mode, rubric, seed=None))
    for process in running:
        assert process.wait(timeout=900) == 0, process.stderr.read()[-2000:]
    assert len(expected) == 1 + len(COMPARED) * 6
    for n in range(2):
        found = _outputs(tmp_path / f"together-{n}")
        differ = sorted(name for name in expected if found.get(name) != expected[name])
        assert differ == [], (n, differ[:5])
