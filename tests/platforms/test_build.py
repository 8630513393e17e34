"""The builds: a reproducible handout with nothing hidden in it, and Gradescope's autograder.zip
proven without Gradescope, in a temporary root that mimics /autograder, as root."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.grading.test_engine import _check_schema
from tests.support import interpreters, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

from autograder import archive, paths
from autograder.grading import rubric as rubrics
from autograder.lab import cases, spec
from autograder.labkit.load import default as default_lab
from autograder.sandbox import leases
from tests.conftest import build_dist

CHECKS = len(
    rubrics.load(default_lab().place.rubric, default_lab()).checks
)  # every check of the rubric is a test of results.json


def test_builds_are_reproducible(dist, tmp_path):
    """Does building again from the same inputs give byte-identical zips?"""
    again = build_dist(tmp_path)
    for name, path in dist.items():
        assert path.read_bytes() == again[name].read_bytes(), name


def test_handout_is_exactly_the_assignment_folder(dist):
    """Does handout.zip hold the assignment folder's files (stubs, given code, notebook, checks) and no more?"""
    names = sorted(zipfile.ZipFile(dist["handout"]).namelist())
    expected = sorted(
        f"lab05-handout/{p.relative_to(paths.HANDOUT).as_posix()}"
        for p in paths.HANDOUT.rglob("*")
        if p.is_file() and not any(part in archive.EXCLUDED for part in p.parts) and p.suffix != ".run"
    )
    assert names == expected
    assert "lab05-handout/lab05/metrics.py" in names and "lab05-handout/lab05.ipynb" in names


def _handout_text(dist) -> str:
    with zipfile.ZipFile(dist["handout"]) as archive:
        return "\n".join(archive.read(name).decode("utf-8") for name in archive.namelist())


def test_handout_has_no_solution_code(dist):
    """Are the graded files stubs, with no solution block or solution helper anywhere?"""
    text = _handout_text(dist)
    with zipfile.ZipFile(dist["handout"]) as archive:
        for name in spec.GRADED_FILES:
            assert archive.read(f"lab05-handout/lab05/{name}") == paths.handout_file(name).read_bytes()
    for marker in (
        "BEGIN SOLUTION",
        "_relevant_flags",
        "_count_relevant",
        "_gain_function",
        "precision_sum",
        "ideal_ranking = sorted",
    ):
        assert marker not in text, marker


def test_handout_has_no_hidden_case(dist):
    """Is no hidden edge case (its id or what it tests) in the handout?"""
    text = _handout_text(dist)
    for case in cases.EDGE_CASES:
        assert case.id not in text and repr(case.args) not in text, case.id


def test_handout_has_no_reference_value(dist):
    """Is no stored reference value (the per-query Cranfield values, the edge cases' answers) in it?"""
    text = _handout_text(dist)
    stored = json.loads(default_lab().place.reference.read_text())
    values = [
        v
        for system in stored["cranfield"].values()
        for per_query in system.values()
        for v in per_query.values()
        if 0 < v < 1
    ]
    values += [v for v in stored["edge"].values() if isinstance(v, float) and 0 < v < 1 and v not in (0.5, 0.25)]
    simple = {p / q for q in range(1, 31) for p in range(q + 1)}  # fractions the notes' examples print
    distinctive = {repr(v)[:10] for v in values if len(repr(v)) > 10 and all(abs(v - f) > 1e-12 for f in simple)}
    assert len(distinctive) > 100
    assert [value for value in distinctive if value in text] == []


def test_handout_has_no_grader_code(dist):
    """Is none of the grader's code (its modules, the harness, the rubric) in the handout? (Its
    README may name grading.yml, which its "This course" section is made from: the file itself and
    its checks are what must not be there.)"""
    text = _handout_text(dist)
    with zipfile.ZipFile(dist["handout"]) as archive:
        assert not [name for name in archive.namelist() if name.endswith("grading.yml")]
    for marker in (
        "def grade(",
        "harness",
        "jail",
        "{function: ",
        "kind: run_format",
        "expected.json",
        "from autograder",
    ):
        assert marker not in text, marker


def test_autograder_zip_has_gradescopes_layout(dist):
    """Does autograder.zip hold setup.sh and run_autograder (executable), requirements, the engine,
    the rubric, the hidden reference (under hidden/), the given files and Cranfield?"""
    with zipfile.ZipFile(dist["autograder"]) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    for name in (
        "setup.sh",
        "run_autograder",
        "requirements.txt",
        "grading.yml",
        "hidden/cranfield-bundle.json",
        "hidden/expected.json",
        "hidden/edge_cases.json",
        "autograder/__main__.py",
        "autograder/sandbox/child/harness.py",
        "assignment/lab05/data.py",
        "assignment/tests/public_cases.py",
        "ir_datasets/cranfield/docs.txt",
        "ir_datasets/cranfield/queries.txt",
        "ir_datasets/cranfield/qrels.txt",
    ):
        assert name in infos, name
    for name in ("setup.sh", "run_autograder"):
        assert (infos[name].external_attr >> 16) & 0o111, name
    assert not any(name.startswith(("solutions/", "tests/", "examples/")) for name in infos)


# ---------------------------------------------------------------- Gradescope, simulated

HOSTILE = (
    subs.SOLUTION["runs.py"],
    paths.handout_file("metrics.py")
    .read_text()
    .replace(
        "from __future__ import annotations\n",
        """from __future__ import annotations
import glob, json, os

FOUND = []
for pattern in ["{root}/source/lab/data/*.json", "{root}/source/*.json", "{root}/source/grading.yml",
                "/autograder/source/lab/data/*.json", "{root}/source/hidden/*",
                "{root}/source/hidden/cache/*", "/autograder/source/hidden/*"]:
    for path in glob.glob(pattern):
        try:
            FOUND.append(open(path).read(100))
        except OSError:
            pass
for target in ["{root}/results/results.json", "/autograder/results/results.json", "results.json"]:
    try:
        with open(target, "w") as forged:
            json.dump({{"score": 100, "tests": [{{"name": "forged", "score": 100, "max_score": 100}}]}}, forged)
    except OSError:
        pass
""",
        1,
    ),
)


def run_autograder(
    root: Path,
    files: dict,
    isolation: str,
    prefix: tuple = (),
    output: list | None = None,
    status: int = 0,
    **variables: str,
) -> dict:
    """Run ``run_autograder`` on ``files`` (``prefix``: a command it runs under, e.g. to enter a
    cgroup; ``variables``: environment variables set for it); its results.json, checked against
    Gradescope's schema when it exits 0 (``status``: the exit status expected), its output
    appended to ``output`` when given."""
    submission, results = root / "submission", root / "results"
    shutil.rmtree(submission, ignore_errors=True)
    shutil.rmtree(results, ignore_errors=True)
    submission.mkdir()
    results.mkdir()
    for name, content in files.items():
        (submission / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
    environment.update(
        {
            "AUTOGRADER_ROOT": str(root),
            "AUTOGRADER_PYTHON": sys.executable,
            "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",
            "AUTOGRADER_ISOLATION": isolation,
            **variables,
        }
    )
    run = subprocess.run(
        [*prefix, "bash", str(root / "source" / "run_autograder")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert run.returncode == status, run.stderr
    if output is not None:
        output.append(run.stdout + run.stderr)
    document = json.loads((results / "results.json").read_text())
    if status == 0:
        _check_schema(document)
    return document


def test_run_autograder_refuses_with_a_child_python_the_sandbox_user_cannot_read(gradescope_root):
    """With a child interpreter under a folder only root may enter, does run_autograder grade
    nothing (the reference neither): exit non-zero, results.json without a score telling the
    student grading is broken, and the proof's failure in the output instructors see?"""
    output: list[str] = []
    graded = {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}
    with interpreters.sealed() as python:
        document = run_autograder(
            gradescope_root, graded, "uid", output=output, status=2, AUTOGRADER_CHILD_PYTHON=python
        )
    assert "score" not in document and document["tests"] == []
    assert "could not prove that it grades honest work" in document["output"]
    assert "refused to grade" in output[0] and "No module named '__future__'" in output[0]


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_setup_locks_the_grader_away(gradescope_root, isolation):
    """After setup.sh, is there a lab05-student user and is the source unreadable to it?"""
    import pwd

    user = pwd.getpwnam("lab05-student")
    assert user.pw_uid != 0
    assert (gradescope_root / "source").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_solutions_get_full_marks_on_gradescope(gradescope_root, isolation):
    """Does run_autograder give the solutions 100, jailed and as the unprivileged user?"""
    document = run_autograder(gradescope_root, {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}, isolation)
    assert document["score"] == 100 and len(document["tests"]) == CHECKS


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_stubs_get_zero_on_gradescope(gradescope_root, isolation):
    """Does run_autograder give the stubs 0, with the tests listed?"""
    stubs = {name: paths.handout_file(name).read_text() for name in spec.GRADED_FILES}
    document = run_autograder(gradescope_root, stubs, isolation)
    assert document["score"] == 0 and len(document["tests"]) == CHECKS
    assert "NotImplementedError" in json.dumps(document)


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_hostile_submission_gains_nothing_on_gradescope(gradescope_root, isolation):
    """A submission that forges results.json and reads the reference: is the forged file replaced,
    nothing read, and the score what its (stub) code earns?"""
    runs, metrics = HOSTILE
    metrics = metrics.replace("{root}", str(gradescope_root)).replace("{{", "{").replace("}}", "}")
    metrics += (
        "\n\ndef accuracy(retrieved, relevant, collection_size):\n    raise RuntimeError(f'found {len(FOUND)}')\n"
    )
    document = run_autograder(gradescope_root, {"metrics.py": metrics, "runs.py": runs}, isolation)
    assert "forged" not in [test["name"] for test in document["tests"]] and len(document["tests"]) == CHECKS
    assert document["score"] == 18  # write_run's points, which its correct runs.py earns; no metric points
    assert "found 0" in json.dumps(document)


@pytest.mark.parametrize("isolation", ["auto", "uid"])
def test_broken_zip_gets_a_clear_result_on_gradescope(gradescope_root, isolation):
    """Does an unreadable zip get results.json with 0 and a message saying what is wrong?"""
    document = run_autograder(gradescope_root, {"lab05.zip": b"PK\x03\x04 not a zip at all"}, isolation)
    assert document["score"] == 0
    assert "not a readable zip" in document["output"]


def test_run_autograder_doctor_prints_what_the_container_allows(gradescope_root):
    """Does `run_autograder --doctor` (what the README asks instructors to run in Debug via SSH)
    print the machine's facts, with the sandbox user's uid and the shipped reference?"""
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
    environment.update(
        {
            "AUTOGRADER_ROOT": str(gradescope_root),
            "AUTOGRADER_PYTHON": sys.executable,
            "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",  # setup.sh's child environment is not installed here
        }
    )
    run = subprocess.run(
        ["bash", str(gradescope_root / "source" / "run_autograder"), "--doctor"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert run.returncode == 0, run.stderr
    assert f"uid {pwd.getpwnam(leases.SANDBOX_USER).pw_uid}" in run.stdout
    assert "cranfield-bundle.json ($AUTOGRADER_BUNDLE) is there" in run.stdout
    assert run.stdout.splitlines()[-1].startswith("isolation auto chooses: ")


def test_run_autograder_refuses_an_attempt_over_the_limit(gradescope_root):
    """grading.yml allowing one graded attempt a day and Gradescope's metadata showing one an hour
    before: does run_autograder keep that attempt's score and tests under a message saying when the
    next attempt is, without grading (the solutions it was given would score 100)?"""
    rubric = gradescope_root / "source" / "grading.yml"
    original = rubric.read_bytes()
    metadata = gradescope_root / "submission_metadata.json"
    test = {"name": "accuracy: hidden edge cases", "score": 42.5, "max_score": 100, "status": "failed", "output": ""}
    earlier = {"score": 42.5, "output": "before", "tests": [{**test, "visibility": "visible"}]}
    metadata.write_text(
        json.dumps(
            {
                "created_at": "2026-12-02T10:00:00.123456-08:00",
                "previous_submissions": [
                    {"submission_time": "2026-12-02T09:00:00.5-08:00", "score": 42.5, "results": earlier}
                ],
            }
        )
    )
    try:
        zone = b"deadline: {due: 2026-12-05 23:59, timezone: America/Los_Angeles}\n"
        rubric.write_bytes(original + b"attempts: {per_period: 1, period_hours: 24}\n" + zone)
        files = {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}
        document = run_autograder(gradescope_root, files, "auto")
    finally:
        rubric.write_bytes(original)
        metadata.unlink()
    assert document["score"] == 42.5 and document["tests"] == earlier["tests"]
    assert "available from 2026-12-03 17:01 UTC (09:01 PST, America/Los_Angeles)" in document["output"]
    assert document["output"].endswith("before") and document["extra_data"] == {"lab05_attempt": "over the limit"}
