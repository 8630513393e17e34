"""The engine grades a lab it was not written for, unchanged, in this process beside Lab 05: a
second lab of another topic (``tests/fixtures/lab06``: two functions of a classifier's evaluation)
gets its reference written, its submissions graded in the sandbox, their feedback and the class
report; Lab 05 and Lab 06 are graded one after the other by one process, each right; and a new
metric is added to Lab 05 by a record alone (with its solution, its rubric line and a regenerated
reference), as ``docs/ADDING.md`` says, without touching the engine (that copy of Lab 05 by
``python -m autograder --lab`` in a process of its own: its solution is a second package lab05)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import reference
from autograder.labkit.lab import Lab
from autograder.labkit.load import default, load
from autograder.local import batch

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

SECOND = paths.ROOT / "tests" / "fixtures" / "lab06"


def _autograder(lab: Path, *arguments: str) -> subprocess.CompletedProcess:
    """``python -m autograder --lab LAB ...`` in a process of its own: for a copy of Lab 05, whose
    reference solution is a second student package named lab05 (one process holds one,
    ``lab/solution.py``)."""
    environment = {name: value for name, value in os.environ.items() if name not in ("AUTOGRADER_LAB", "LAB05_LAB")}
    return subprocess.run(
        [sys.executable, "-m", "autograder", "--lab", str(lab), *arguments],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=str(lab),
    )


def _graded(lab: Lab, inbox: Path, out: Path, jobs: int = 1, seed: str | None = None) -> dict[str, dict[str, str]]:
    """``lab``'s submissions in ``inbox`` graded in this process into ``out``: their grades.csv rows."""
    batch.grade_batch([inbox], out, jobs=jobs, progress=False, seed=seed, lab=lab)
    return {row["submission"]: row for row in csv.DictReader((out / "grades.csv").open())}


def _submission(folder: Path, package: str, files: dict) -> None:
    (folder / package).mkdir(parents=True)
    for name, text in files.items():
        (folder / package / name).write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def second(tmp_path_factory):
    """Lab 06 copied, its reference written, and three submissions graded: the solution, one that
    computes F1 as accuracy, the stubs."""
    lab = tmp_path_factory.mktemp("lab06") / "lab06"
    shutil.copytree(SECOND, lab)
    default()  # Lab 05 loaded too: the two labs side by side
    written = reference.write(load(lab))
    assert written == lab.resolve() / "lab" / "data" / "expected.json" and reference.load(load(lab))["edge"]
    solution = (lab / "solutions" / "lab06" / "classify.py").read_text()
    buggy = solution.replace(
        "return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0",
        "return sum(p == a for p, a in zip(predicted, actual)) / len(actual) if actual else 0.0",
    )
    assert buggy != solution
    inbox = lab.parent / "in"
    _submission(inbox / "good", "lab06", {"classify.py": solution})
    _submission(inbox / "accuracy", "lab06", {"classify.py": buggy})
    _submission(inbox / "stubs", "lab06", {"classify.py": (lab / "assignment" / "lab06" / "classify.py").read_text()})
    _graded(load(lab), inbox, lab.parent / "out")
    return lab.parent / "out"


def test_the_second_lab_is_graded_end_to_end(second):
    """Does the unchanged engine give Lab 06's solution full marks, the stubs 0 with both functions
    not implemented, and the F1-as-accuracy bug fewer points?"""
    rows = {row["submission"]: row for row in csv.DictReader((second / "grades.csv").open())}
    assert rows["good"]["total"] == "20" and rows["stubs"]["total"] == "0"
    assert rows["stubs"]["not_implemented"] == "f1_score majority_label"
    assert float(rows["accuracy"]["total"]) < 20 and rows["accuracy"]["q2"] == "8"


def test_the_second_lab_s_feedback_and_report_speak_of_it(second):
    """Does the buggy submission's feedback name Lab 06, the misconception of Lab 06's catalogue,
    and the class report Lab 06's functions?"""
    feedback = (second / "submissions" / "accuracy" / "feedback.md").read_text()
    assert feedback.startswith("# Lab 06 feedback: accuracy")
    assert "F1 computed as the share of right predictions (accuracy)" in feedback
    report = (second / "index.html").read_text()
    assert "Lab 06 class report" in report and "majority_label" in report
    results = json.loads((second / "submissions" / "good" / "results.json").read_text())
    assert {test["name"].split(":")[0] for test in results["tests"]} == {"f1_score", "majority_label"}


R_PRECISION = '''
"""r_precision(ranking, judgments, rel=1): precision at rank R, R the relevant documents (an added metric)."""

from .. import cases, features
from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

RECORD = GradedFunction(
    name="r_precision",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part III",
    kinds=(K.RANDOM,),
    takes=("rel",),
    bounded=True,
    features=features.ranking(cutoff=False),
    ir_measure=lambda k=None, rel=1, gain="linear": f"Rprec(rel={rel})",
    random_cases=cases.ranking_cases("r_precision"),
)
'''

SOLUTION = '''

def r_precision(ranking, judgments, rel=1):
    """Precision at rank R, R the judged documents with a grade of at least rel; 0.0 when R = 0."""
    if isinstance(rel, bool) or not isinstance(rel, int) or rel < 1:
        raise ValueError(f"rel must be a positive integer, got {rel!r}")
    relevant = sum(1 for grade in judgments.values() if grade >= rel)
    if not relevant:
        return 0.0
    return sum(1 for doc in list(ranking)[:relevant] if judgments.get(doc, 0) >= rel) / relevant
'''


def test_two_labs_are_graded_one_after_the_other_in_one_process(second, tmp_path):
    """In the process that graded Lab 06's batch: does Lab 05's correct example earn Lab 05's full
    marks on Lab 05's checks, and Lab 06's solution then Lab 06's, each lab's pages naming it?"""
    lab05, lab06 = default(), load(second.parent / "lab06")
    inbox = tmp_path / "lab05"
    shutil.copytree(paths.ROOT / "examples" / "submissions" / "ada-correct", inbox / "ada-correct")
    first = _graded(lab05, inbox, tmp_path / "out05", seed="two-labs")
    assert first["ada-correct"]["total"] == first["ada-correct"]["max"] == "100"
    _submission(
        tmp_path / "lab06" / "good",
        "lab06",
        {"classify.py": (second.parent / "lab06" / "solutions" / "lab06" / "classify.py").read_text()},
    )
    then = _graded(lab06, tmp_path / "lab06", tmp_path / "out06", seed="two-labs")
    assert then["good"]["total"] == then["good"]["max"] == "20"
    for out, lab in ((tmp_path / "out05", lab05), (tmp_path / "out06", lab06)):
        (folder,) = (out / "submissions").iterdir()
        results = json.loads((folder / "results.json").read_text())
        assert {test["name"].split(":")[0] for test in results["tests"]} == set(lab.functions)
        assert (folder / "feedback.md").read_text().startswith(f"# {lab.title} feedback:")


def test_a_metric_is_added_by_its_record_alone(tmp_path, cranfield):
    """Lab 05 with one more metric (its record, the registry's line, its solution, a rubric line,
    the reference written again): is the new function graded against ir_measures with no engine
    edit, a right one earning its points and a wrong one losing them?"""
    lab = tmp_path / "lab05-plus"
    shutil.copytree(paths.LAB_PACKAGE, lab / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("assignment", "solutions"):
        shutil.copytree(paths.ROOT / folder, lab / folder, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    (lab / "lab" / "functions" / "r_precision.py").write_text(textwrap.dedent(R_PRECISION).lstrip())
    registry = lab / "lab" / "functions" / "registry.py"
    text = registry.read_text()
    text = text.replace(
        "    reciprocal_rank,\n    write_run,\n)", "    r_precision,\n    reciprocal_rank,\n    write_run,\n)"
    )
    text = text.replace("        write_run,\n    )\n}", "        write_run,\n        r_precision,\n    )\n}")
    registry.write_text(text)
    solution = lab / "solutions" / "lab05" / "metrics.py"
    solution.write_text(solution.read_text() + SOLUTION)
    rubric = (paths.RUBRIC.read_text()).replace("total: 100", "total: 104")
    rubric += '  q7:\n    title: "R-precision"\n    checks:\n      - {function: r_precision, kind: random, points: 4}\n'
    (lab / "grading.yml").write_text(rubric)
    assert _autograder(lab, "reference").returncode == 0
    right = solution.read_text()
    wrong = right.replace("list(ranking)[:relevant]", "list(ranking)[: relevant + 1]")
    inbox = tmp_path / "in"
    _submission(
        inbox / "right", "lab05", {"metrics.py": right, "runs.py": (lab / "solutions/lab05/runs.py").read_text()}
    )
    _submission(
        inbox / "wrong", "lab05", {"metrics.py": wrong, "runs.py": (lab / "solutions/lab05/runs.py").read_text()}
    )
    # a fixed seed: a ranking with a relevant document just below rank R, the only input this slip
    # shows on, is in about 88% of gradings' 40 random cases of a generic ranking generator
    graded = _autograder(
        lab, "grade", str(inbox), "--out", str(tmp_path / "out"), "--jobs", "2", "--seed", "second-lab"
    )
    assert graded.returncode == 0, graded.stderr[-2000:]
    rows = {row["submission"]: row for row in csv.DictReader((tmp_path / "out" / "grades.csv").open())}
    assert rows["right"]["total"] == "104" and rows["right"]["q7"] == "4"
    assert float(rows["wrong"]["q7"]) < 4 and float(rows["wrong"]["total"]) == 100 + float(rows["wrong"]["q7"])
