"""The random cases' seed: drawn from the course secret, the rubric and the graded files, so the
same files get the same cases and a changed byte gets new ones."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from autograder import cli, paths
from autograder.grading import course_secret
from autograder.labkit.load import default as default_lab
from autograder.labkit.load import load
from autograder.platforms.common import doctor

SECRET = "ab" * 32
RUBRIC = hashlib.sha256(b"random_cases: 20\n").hexdigest()
METRICS = hashlib.sha256(b"def f():\n    return 1\n").hexdigest()
RUNS = hashlib.sha256(b"def write_run(): ...\n").hexdigest()
FILES = {"metrics.py": METRICS, "runs.py": RUNS}
LAB = "lab05"  # Lab 05's short name (Lab.slug)

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
    assert course_secret.seed_for(secret, rubric, files, LAB) != course_secret.seed_for(SECRET, RUBRIC, FILES, LAB)


ORDERS = {
    "metrics first": {"metrics.py": METRICS, "runs.py": RUNS},
    "runs first": {"runs.py": RUNS, "metrics.py": METRICS},
}


@pytest.mark.parametrize("order", list(ORDERS), ids=list(ORDERS))
def test_same_files_same_seed(order: str) -> None:
    """Do the same files get the same 32-hex-digit seed, whatever order they were read in, and
    does the seed hold nothing of the secret?"""
    seed = course_secret.seed_for(SECRET, RUBRIC, ORDERS[order], LAB)
    assert seed == course_secret.seed_for(SECRET, RUBRIC, dict(sorted(FILES.items())), LAB)
    assert len(seed) == 32 and int(seed, 16) >= 0
    assert SECRET[:16] not in seed


#: Lab 05's seed of FILES under SECRET and RUBRIC, as the grader drew it before the seed's text
#: came from the lab (``seed_for`` at commit 00d5349, its text "lab05 random cases" fixed): Lab 05's
#: students keep the random cases, and so the grades, they had.
LAB05_SEED_BEFORE = "3ba218006bb8230a2a2e49ec0098ce3e"

SECOND_LAB = paths.ROOT / "tests" / "fixtures" / "lab06"


def test_lab05_draws_what_it_drew_before() -> None:
    """Does Lab 05 (its seed's text taken from the loaded lab, ``Lab.slug``) draw the very seed it
    drew when the text was fixed, and does Lab 06 draw another from the same files?"""
    lab05, lab06 = default_lab(), load(SECOND_LAB)
    assert (lab05.slug, lab06.slug) == ("lab05", "lab06")
    assert course_secret.seed_for(SECRET, RUBRIC, FILES, lab05.slug) == LAB05_SEED_BEFORE
    assert course_secret.seed_for(SECRET, RUBRIC, FILES, lab06.slug) != LAB05_SEED_BEFORE


NAMES = {"empty": "", "two words": "lab 05", "a newline": "lab05\n"}


@pytest.mark.parametrize("name", list(NAMES.values()), ids=list(NAMES))
def test_a_lab_name_that_is_not_one_word_is_refused(name: str) -> None:
    """Is a lab name that is not one word (it would blur the seed's text) refused, naming it?"""
    with pytest.raises(ValueError, match=r"Lab\.slug"):
        course_secret.seed_for(SECRET, RUBRIC, FILES, name)


def test_no_secret_is_refused() -> None:
    """Is an empty course secret refused with a message naming what to do?"""
    with pytest.raises(ValueError, match="course secret"):
        course_secret.seed_for("", RUBRIC, FILES, LAB)


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


# The course's rubric with a deadline: the trial's edits of it, each made on this text.
DEADLINE = """
deadline:
  due: 2026-12-05 23:59
  timezone: America/Chicago
  penalty: 10
  per: day
  cap: 50
  # extensions: extensions.csv
"""
Q1_CHECK = "      - {function: confusion_matrix, kind: edge, points: 2}\n"

# id -> ((old, new) replacements on the rubric, whether the seed must change). The seed follows what
# decides the calls and cases (questions, functions, kinds, random cases, limits); never a comment,
# the keys' order or spacing, a class setting, nor what only scores (points, titles, visibility).
EDITS: dict[str, tuple[tuple[tuple[str, str], ...], bool]] = {
    "a comment added": ((("total: 100\n", "total: 100  # out of 100\n# a note\n"),), False),
    "the late penalty": ((("  penalty: 10\n", "  penalty: 15\n"),), False),
    "extensions uncommented": ((("  # extensions: extensions.csv", "  extensions: extensions.csv"),), False),
    "attempt limits added": (
        (("students:\n", "attempts: {per_period: 2, period_hours: 24, total: 10}\nstudents:\n"),),
        False,
    ),
    "the deadline moved": ((("due: 2026-12-05 23:59", "due: 2026-12-12 23:59"),), False),
    "the deadline removed": (((DEADLINE, ""),), False),
    "the similarity threshold": ((("threshold: 0.5", "threshold: 0.7"),), False),
    "keys in another order": (
        (("random_seed: 20261130\nrandom_cases: 40\n", "random_cases: 40\nrandom_seed: 20261130\n"),),
        False,
    ),
    "a check written as a block": (
        ((Q1_CHECK, "      -   function: confusion_matrix\n          kind: edge\n          points: 2\n"),),
        False,
    ),
    "a default written out": (
        (("output_kb: 64\n", "output_kb: 64\n  # default\n"), ("students:\n  policy: latest\n", "")),
        False,
    ),
    "a check's points (rescored, same cases)": (
        (
            (
                "kind: edge, points: 2}\n      - {function: confusion_matrix, kind: random, points: 2}",
                "kind: edge, points: 3}\n      - {function: confusion_matrix, kind: random, points: 1}",
            ),
        ),
        False,
    ),
    "a question's title": ((('title: "Part IV: DCG and nDCG"', 'title: "Part IV: discounted gain"'),), False),
    "a check's visibility": ((("kind: edge, points: 2}\n", "kind: edge, points: 2, visibility: hidden}\n"),), False),
    "the random cases' count": ((("random_cases: 40", "random_cases: 30"),), True),
    "the rubric's random_seed": ((("random_seed: 20261130", "random_seed: 20261131"),), True),
    "a question added": (
        (
            ("      - {function: dcg_at_k, kind: random, points: 3}\n", ""),
            (
                "questions:\n",
                "questions:\n  q0:\n    title: DCG\n    checks:\n"
                "      - {function: dcg_at_k, kind: random, points: 3}\n",
            ),
        ),
        True,
    ),
    "a check removed": (
        (
            ("      - {function: ndcg_at_k, kind: cranfield, points: 1}\n", ""),
            ("{function: ndcg_at_k, kind: random, points: 7}", "{function: ndcg_at_k, kind: random, points: 8}"),
        ),
        True,
    ),
    "a limit": ((("call_seconds: 5", "call_seconds: 6"),), True),
    "another allowed import": ((("allowed_imports: [numpy]", "allowed_imports: [numpy, scipy]"),), True),
}


def _session_seed(text: str) -> str:
    """The seed a grading session draws the same files' random cases with under the rubric ``text``."""
    from types import SimpleNamespace

    from autograder.grading import grader, intake, session
    from autograder.grading import rubric as rubrics

    drawn: list[str] = []

    def recorded(staged, plan, isolation, limits, slot, deadline, seed):  # type: ignore[no-untyped-def]
        drawn.append(seed)
        return SimpleNamespace(seed=seed)

    rubric = rubrics.parse(text, lab=default_lab())
    plan = SimpleNamespace(rubric=rubric, lab=default_lab())
    opened = session.Session(plan, None, SECRET)  # type: ignore[arg-type]
    staged = intake.Staged(intake.Source("s", Path("s")), {"metrics.py": b"def f():\n    return 1\n"})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grader, "grade", recorded)
        opened.grade(staged)
    assert len(drawn) == 1 and drawn[0], f"the session drew no seed: {drawn}"
    return drawn[0]


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_a_rubric_edit_changes_the_seed_only_if_it_changes_the_cases(edit: str) -> None:
    """Does an edit of grading.yml draw other random cases (another seed) for the same files exactly
    when it changes what the cases are made of, never for a comment or a class setting?"""
    from autograder import paths

    base = paths.RUBRIC.read_text(encoding="utf-8").replace("students:\n", DEADLINE.lstrip("\n") + "students:\n", 1)
    replacements, changes = EDITS[edit]
    edited = base
    for old, new in replacements:
        assert old in edited, f"{edit}: {old!r} is not in the rubric any more; update the table"
        edited = edited.replace(old, new, 1)
    assert edited != base
    before, after = _session_seed(base), _session_seed(edited)
    assert (before != after) == changes, (
        f"{edit}: seed {before} -> {after}, expected {'a new' if changes else 'the same'}"
    )


def test_a_secret_that_cannot_be_made_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch whose rubric sits where no file can be made (a read-only mount; here a folder that
    is not there) stopped with a traceback: does it now say where and what to do, with nothing made?"""
    monkeypatch.setenv(course_secret.ENVIRONMENT, str(tmp_path / "read-only" / "course-secret"))
    with pytest.raises(course_secret.InputError) as raised:
        course_secret.load(tmp_path / "grading.yml", create=True)
    told = str(raised.value)
    assert f"cannot make the course secret at {tmp_path / 'read-only' / 'course-secret'}" in told
    assert "make that folder writable" in told and course_secret.ENVIRONMENT in told
    assert not (tmp_path / "read-only").exists()
