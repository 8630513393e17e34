"""The random cases' seed: drawn from the course secret, the rubric and the graded files, so the
same files get the same cases and a changed byte gets new ones."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from autograder import cli
from autograder.grading import course_secret
from autograder.platforms.common import doctor

SECRET = "ab" * 32
RUBRIC = hashlib.sha256(b"random_cases: 20\n").hexdigest()
METRICS = hashlib.sha256(b"def f():\n    return 1\n").hexdigest()
RUNS = hashlib.sha256(b"def write_run(): ...\n").hexdigest()
FILES = {"metrics.py": METRICS, "runs.py": RUNS}

# id -> (secret, rubric digest, file digests): each differs from FILES under SECRET and RUBRIC in one thing
CHANGED = {
    "a comment added to metrics.py": (
        SECRET,
        RUBRIC,
        {"metrics.py": hashlib.sha256(b"def f():\n    return 1\n# x\n").hexdigest(), "runs.py": RUNS},
    ),
    "another course's secret": ("cd" * 32, RUBRIC, FILES),
    "another rubric": (SECRET, hashlib.sha256(b"random_cases: 21\n").hexdigest(), FILES),
    "runs.py missing": (SECRET, RUBRIC, {"metrics.py": METRICS}),
}


@pytest.fixture(autouse=True)
def _secret_beside_the_rubric(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read and make the secret beside a rubric, not the suite's fixed one."""
    monkeypatch.delenv(course_secret.ENVIRONMENT, raising=False)


@pytest.mark.parametrize("changed", list(CHANGED), ids=list(CHANGED))
def test_one_change_draws_another_seed(changed: str) -> None:
    """Does changing one input of the seed (a file's byte, the secret, the rubric) change the seed?"""
    secret, rubric, files = CHANGED[changed]
    assert course_secret.seed_for(secret, rubric, files) != course_secret.seed_for(SECRET, RUBRIC, FILES)


ORDERS = {
    "metrics first": {"metrics.py": METRICS, "runs.py": RUNS},
    "runs first": {"runs.py": RUNS, "metrics.py": METRICS},
}


@pytest.mark.parametrize("order", list(ORDERS), ids=list(ORDERS))
def test_same_files_same_seed(order: str) -> None:
    """Do the same files get the same 32-hex-digit seed, whatever order they were read in, and
    does the seed hold nothing of the secret?"""
    seed = course_secret.seed_for(SECRET, RUBRIC, ORDERS[order])
    assert seed == course_secret.seed_for(SECRET, RUBRIC, dict(sorted(FILES.items())))
    assert len(seed) == 32 and int(seed, 16) >= 0
    assert SECRET[:16] not in seed


def test_no_secret_is_refused() -> None:
    """Is an empty course secret refused with a message naming what to do?"""
    with pytest.raises(ValueError, match="course secret"):
        course_secret.seed_for("", RUBRIC, FILES)


def test_a_batch_makes_the_secret_once(tmp_path: Path) -> None:
    """Does a local batch make the secret beside the rubric once, say so, and read the same one back?"""
    rubric = tmp_path / "grading.yml"
    rubric.write_text("random_cases: 20\n", encoding="utf-8")
    made, note = course_secret.load(rubric, create=True)
    again, quiet = course_secret.load(rubric, create=True)
    assert (made, quiet) == (again, "")
    assert "made a new course secret" in note and str(tmp_path / "course-secret") in note
    assert (tmp_path / "course-secret").stat().st_mode & 0o077 == 0


# id -> (what the file holds or None when absent, create, the error raised, the words of its message)
LOADS = {
    "absent on a platform": (None, False, course_secret.MissingSecret, r"no course secret at .*course-secret.*Rebuild"),
    "too short": ("abc\n", False, ValueError, r"course-secret.*delete it"),
    "not hex": ("z" * 64 + "\n", True, ValueError, r"course-secret.*delete it"),
}


@pytest.mark.parametrize("case", list(LOADS), ids=list(LOADS))
def test_missing_or_bad_secret_says_so(tmp_path: Path, case: str) -> None:
    """Does a missing secret where none may be made, or a malformed one, refuse, saying which file
    and what to do, and make nothing?"""
    held, create, error, words = LOADS[case]
    rubric = tmp_path / "grading.yml"
    rubric.write_text("x: 1\n", encoding="utf-8")
    if held is not None:
        (tmp_path / "course-secret").write_text(held, encoding="utf-8")
    with pytest.raises(error, match=words):
        course_secret.load(rubric, create)
    assert (tmp_path / "course-secret").exists() == (held is not None)


# id -> (the platform's command, the submission's folder under --root)
PLATFORMS = {"gradescope": ("gradescope", "submission"), "prairielearn": ("prairielearn", "student")}


@pytest.mark.parametrize("case", PLATFORMS.values(), ids=PLATFORMS.keys())
def test_a_platform_run_without_the_secret_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: tuple[str, str]
) -> None:
    """A platform build that shipped no course secret: does its run exit 2, write a results file
    without a score that tells the student nothing was graded, and tell the instructor to rebuild?"""
    command, folder = case
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "metrics.py").write_text("def precision_at_k(ranking, relevant, k):\n    return 1.0\n")
    monkeypatch.setenv(course_secret.ENVIRONMENT, str(tmp_path / "never-made"))
    monkeypatch.setattr(doctor, "examine", _no_doctor)  # the machine's facts: not what is tried here
    code = cli.main([command, "--root", str(tmp_path)])
    written = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    said = capsys.readouterr()
    assert code == 2
    assert "score" not in written
    assert "was not graded and no score was given" in json.dumps(written)
    assert "refused to grade: no course secret at" in said.out and "Rebuild it" in said.out
    assert not (tmp_path / "never-made").exists()


def _no_doctor(*args: object) -> doctor.Findings:
    raise RuntimeError("not examined in this test")


def test_a_named_secret_file_is_used_for_every_rubric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With $AUTOGRADER_COURSE_SECRET naming a file, is that file the secret of every rubric, and is
    nothing made beside a rubric?"""
    named = tmp_path / "kept-elsewhere"
    named.write_text("cd" * 32 + "\n", encoding="utf-8")
    monkeypatch.setenv(course_secret.ENVIRONMENT, str(named))
    for folder in ("a", "b"):
        rubric = tmp_path / folder / "grading.yml"
        rubric.parent.mkdir()
        rubric.write_text("x: 1\n", encoding="utf-8")
        assert course_secret.load(rubric, create=True) == ("cd" * 32, "")
        assert not (rubric.parent / course_secret.FILE_NAME).exists()
