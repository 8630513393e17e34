"""The proof every grading run makes first (``sandbox/proof.py``): a known honest probe graded in
the exact isolation and child interpreter, or nothing is graded. The interpreters here: the
system's, a copy of it under a 0700 root-owned folder (its standard library linked there, as a
Python under /root has it: the sandbox user cannot read it), and a venv without numpy."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading.session import Session
from autograder.labkit.load import default as default_lab
from autograder.sandbox import isolation as isolations
from autograder.sandbox import proof, runner
from autograder.sandbox.settings import Mode
from tests.support import interpreters

pytestmark = pytest.mark.sandbox
SYSTEM = interpreters.SYSTEM


def _root_only():
    if os.getuid() != 0:
        pytest.fail("these tests run children as another user: run them as root (CI does)", pytrace=False)


@pytest.fixture(scope="module")
def sealed():
    """An interpreter the sandbox user cannot read (``interpreters.sealed``)."""
    _root_only()
    with interpreters.sealed() as python:
        yield python


@pytest.fixture(scope="module")
def without_numpy():
    """A venv without numpy (``interpreters.without_numpy``)."""
    _root_only()
    with interpreters.without_numpy() as python:
        yield python


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A cache of the test's own: nothing proved before it."""
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _isolation(python: str, mode: str = "uid", allowed: tuple[str, ...] | None = ("numpy",)):
    chosen = isolations.choose(mode, python, banned=("ir_measures",))
    return replace(chosen, allowed=allowed)


class _Counted:
    """runner.run, counted."""

    def __init__(self):
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return runner.run(*args, **kwargs)


@pytest.mark.parametrize("mode", ["uid", "jail"], ids=["uid", "jail"])
def test_a_working_interpreter_is_proved_once(private_cache, mode):
    """Does the probe score full with the system's interpreter, and is the proof remembered (a
    second proof starts no child)?"""
    _root_only()
    isolation = _isolation(SYSTEM, mode)
    counted = _Counted()
    first = proof.prove(isolation, counted)
    second = proof.prove(isolation, counted)
    assert (first.remembered, second.remembered, counted.calls) == (False, True, 1)
    assert [path.name for path in private_cache.glob("proved-*.json")] != []


def test_a_changed_folder_mode_proves_again(private_cache, sealed):
    """Once the sealed folder is opened to other users (its mode changes), is the proof made again,
    and does it then pass?"""
    folder = Path(sealed).parents[2]
    isolation = _isolation(sealed)
    counted = _Counted()
    with pytest.raises(proof.ProofError):
        proof.prove(isolation, counted)
    os.chmod(folder, 0o755)
    try:
        passed = proof.prove(isolation, counted)
    finally:
        os.chmod(folder, 0o700)
    assert (passed.remembered, counted.calls) == (False, 2)


def _write_nothing(source: str) -> str:
    return source.replace('    with open(path, "w"', '    return None\n    with open(path, "w"')


def _wrong_power(source: str) -> str:
    return source.replace("value**power", "value * power")


# (id, interpreter: "system", "sealed", "no-numpy", "not-executable" (a text file) or a path; a change
# to the probe's file; words the refusal holds: what failed, then what to do)
FAILURES = [
    ("cannot-start", "not-executable", None, ["cannot start the child interpreter", "name a Python interpreter"]),
    (
        "exits-at-once",
        "/bin/false",
        None,
        ["importing the probe's calls.py failed", "never imported", "name a Python interpreter"],
    ),
    (
        "import-fails",
        "sealed",
        None,
        [
            "importing the probe's calls.py failed",
            "No module named '__future__'",
            "the sandbox user cannot read",
            "(mode 0700, owner uid 0)",
            "chmod o+rx on its folders",
        ],
    ),
    ("numpy-missing", "no-numpy", None, ["the allowed packages", "No module named 'numpy'", "allowed_imports"]),
    (
        "wrong-value",
        "system",
        ("calls.py", _wrong_power),
        ["the call loop", "power_sum([1, 2, 3], 2) returned '12'", "expected '14'", "the sandbox itself misbehaves"],
    ),
    ("no-run-file", "system", ("runs.py", _write_nothing), ["wrote no run file", "the sandbox itself misbehaves"]),
]


@pytest.mark.parametrize("interpreter, change, words", [row[1:] for row in FAILURES], ids=[row[0] for row in FAILURES])
def test_each_failure_is_refused_and_named(
    tmp_path, private_cache, sealed, without_numpy, monkeypatch, interpreter, change, words
):
    """Does a probe that cannot start, does not import, lacks numpy, answers wrong or writes no run
    file refuse grading, saying what failed and what to do, and remember nothing?"""
    text = tmp_path / "python"
    text.write_text("not a program\n")
    pythons = {"system": SYSTEM, "sealed": sealed, "no-numpy": without_numpy, "not-executable": str(text)}
    if interpreter in ("sealed", "no-numpy"):  # interpreters choose() can probe
        isolation = _isolation(pythons[interpreter])
    else:  # the system's isolation, then the interpreter swapped in
        isolation = replace(_isolation(SYSTEM), python=pythons.get(interpreter, interpreter))
    if change is not None:
        file, edit = change
        monkeypatch.setitem(proof.PROBE, file, edit(proof.PROBE[file]))
    with pytest.raises(proof.ProofError) as refused:
        proof.prove(isolation)
    message = str(refused.value)
    assert [word for word in words if word not in message] == [], message
    assert "so nothing is graded, stored or replaced" in message and "autograder doctor" in message
    assert list(private_cache.glob("proved-*.json")) == []


def test_a_sealed_interpreter_is_refused_by_the_session(sealed):
    """Does opening a grading session with an interpreter the sandbox user cannot read refuse,
    before any submission is graded?"""
    with pytest.raises(proof.ProofError, match="No module named '__future__'"):
        Session.open(default_lab(), isolation="uid", python=sealed)


def test_unreadable_names_the_closed_folder(sealed):
    """Does the diagnosis name the 0700 folder on the interpreter's way, and nothing for the
    system's interpreter or a child that keeps the grader's uid?"""
    folder = str(Path(sealed).parents[2])
    found = [
        proof.unreadable(_isolation(sealed)),
        proof.unreadable(_isolation(SYSTEM)),
        proof.unreadable(replace(_isolation(sealed), mode=Mode.NONE, uids=())),
    ]
    assert found[0] is not None and found[0].startswith(f"{folder} (mode 0700") and found[1:] == [None, None]


def _cli(*args, **environment):
    env = {**os.environ, **environment}
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=paths.ROOT,
        env=env,
    )


@pytest.mark.slow
def test_a_local_batch_refuses_and_keeps_the_stored_grade(tmp_path, sealed):
    """With a sealed interpreter, does `grade` exit non-zero naming the import error, write no
    grades.csv in a fresh folder, and, with --force over a batch graded before, leave its grade
    and grades.csv as they were?"""
    classroom = tmp_path / "class"
    shutil.copytree(paths.SOLUTIONS, classroom / "reference")
    before = _cli(
        "grade",
        str(classroom),
        "--out",
        str(tmp_path / "out"),
        "--isolation",
        "uid",
        "--jobs",
        "1",
        "--child-python",
        SYSTEM,
    )
    assert before.returncode == 0, before.stderr
    stored = {
        name: (tmp_path / "out" / name).read_bytes() for name in ("grades.csv", "submissions/reference/grade.json")
    }
    rows = list(csv.DictReader(stored["grades.csv"].decode().splitlines()))
    assert [(row["submission"], row["total"]) for row in rows] == [("reference", "100")]
    again = _cli(
        "grade",
        str(classroom),
        "--out",
        str(tmp_path / "out"),
        "--isolation",
        "uid",
        "--jobs",
        "1",
        "--force",
        "--child-python",
        sealed,
    )
    fresh = _cli(
        "grade", str(classroom), "--out", str(tmp_path / "fresh"), "--isolation", "uid", "--child-python", sealed
    )
    assert (again.returncode, fresh.returncode) == (2, 2)
    assert "No module named '__future__'" in again.stderr and "the sandbox user cannot read" in again.stderr
    assert {name: (tmp_path / "out" / name).read_bytes() for name in stored} == stored
    assert not (tmp_path / "fresh" / "grades.csv").exists() and not (tmp_path / "fresh" / "submissions").exists()


def test_doctor_reports_the_failed_proof(sealed):
    """Does `doctor` with a sealed interpreter in the uid mode say the proof failed and why, call
    the uid fallback not working, and exit 1; and with the system's, say the proof passed?"""
    failed = _cli("doctor", "--child-python", sealed, "--isolation", "uid")
    passed = _cli("doctor", "--child-python", SYSTEM, "--isolation", "uid")
    lines = {line.split("  ")[0]: line for line in failed.stdout.splitlines()}
    assert failed.returncode == 1, failed.stderr
    assert lines["proof"].split()[1] == "no:" and "No module named '__future__'" in lines["proof"]
    assert lines["uid fallback"].split()[2] == "no:"
    assert failed.stdout.splitlines()[-1] == "isolation uid cannot grade here: the proof failed (above)"
    assert (
        passed.returncode == 0
        and "proof            yes: a known honest probe scored full in the uid mode" in passed.stdout
    )


PLATFORMS = [
    ("gradescope", "submission", "output"),
    ("prairielearn", "student", "message"),
]


@pytest.mark.slow
@pytest.mark.parametrize("platform, folder, said", PLATFORMS, ids=[row[0] for row in PLATFORMS])
def test_a_platform_run_refuses_without_a_score(tmp_path, sealed, platform, folder, said):
    """Does a platform's grader with a sealed interpreter exit non-zero and write a results.json
    with no score, telling the student that grading is broken, and the log the import error?"""
    (tmp_path / folder).mkdir()
    for name in ("metrics.py", "runs.py"):
        shutil.copy(paths.SOLUTIONS / "lab05" / name, tmp_path / folder / name)
    run = _cli(platform, "--root", str(tmp_path), "--isolation", "uid", "--child-python", sealed)
    document = json.loads((tmp_path / "results" / "results.json").read_text())
    assert run.returncode == 2, run.stderr
    assert "score" not in document and "could not prove that it grades honest work" in document[said]
    assert "refused to grade" in run.stdout and "No module named '__future__'" in run.stdout


def _gradescope_marked(message):
    from autograder.platforms.gradescope import attempts
    from autograder.reports import gradescope_json

    return attempts.failed_marked(gradescope_json.failed)(message)


def _prairielearn(message):
    from autograder.reports import prairielearn_json

    return prairielearn_json.failed(message)


# (id, the platform's failed document, what the refusal keeps of it besides the message, Gradescope's attempts)
REFUSALS = [
    ("gradescope", _gradescope_marked, {"tests": [], "stdout_visibility": "hidden"}, True),
    ("prairielearn", _prairielearn, {"gradable": True, "tests": []}, False),
]


@pytest.mark.parametrize(
    "failed, kept, attempts_counted", [row[1:] for row in REFUSALS], ids=[row[0] for row in REFUSALS]
)
def test_a_refusal_is_the_failed_document_without_a_score(failed, kept, attempts_counted):
    """Is a platform's refusal its failed document (which scores 0) with the message and without a
    score, and on Gradescope still marked as no graded attempt (a refusal never uses one up)?"""
    from autograder.platforms.common import oneshot
    from autograder.platforms.gradescope import attempts

    document = oneshot.refused(failed, "grading is broken")
    assert failed("x")["score"] == 0
    assert "score" not in document and {key: document[key] for key in kept} == kept
    assert "grading is broken" in json.dumps(document)
    if attempts_counted:
        assert document["extra_data"][attempts.ATTEMPT] == attempts.NOT_GRADED and not attempts._counted(document)
