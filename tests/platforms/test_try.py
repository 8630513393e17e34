"""``python -m autograder try``: a built grader run on one submission as its platform would run it
(Gradescope's autograder.zip in a root laid out as /autograder, PrairieLearn's question and image
in one laid out as the image and /grade), printing the score and where the results are."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.platforms.prairielearn import build as prairielearn

EXAMPLES = paths.ROOT / "examples" / "submissions"

#: (platform, example submission, what its score must be: "full" or "partial" (above 0, below full)).
RUNS = {
    "gradescope-correct": ("gradescope", "ada-correct", "full"),
    "gradescope-buggy": ("gradescope", "carol-buggy", "partial"),
    "prairielearn-correct": ("prairielearn", "ada-correct", "full"),
    "prairielearn-buggy": ("prairielearn", "carol-buggy", "partial"),
}


def _try(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "try", *args, "--child-python", "/usr/bin/python3"],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def builds(dist, tmp_path_factory):
    """What `build` writes for each platform: autograder.zip, and PrairieLearn's folder."""
    folder = tmp_path_factory.mktemp("prairielearn-build")
    prairielearn.build(folder, default_lab())
    return {"gradescope": dist["autograder"], "prairielearn": folder}


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.cranfield
@pytest.mark.parametrize("case_id", list(RUNS))
def test_try_runs_the_build_as_the_platform_would(case_id, builds, tmp_path):
    """Does `try BUILT SUBMISSION` lay out the platform's root, run the build's own script on the
    example, and print a score that is full for the correct one and partial for the buggy one, with
    the results.json it names holding that score?"""
    platform, example, expected = RUNS[case_id]
    root = tmp_path / "root"
    result = _try(str(builds[platform]), str(EXAMPLES / example), "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    named = re.search(r"results in (\S+results\.json);", result.stdout)
    assert named, result.stdout
    document = json.loads(Path(named.group(1)).read_text())
    if platform == "gradescope":
        assert (root / "source" / "run_autograder").is_file() and (root / "submission" / "lab05").is_dir()
        full = sum(test["max_score"] for test in document["tests"])
        score = document["score"]
    else:
        assert (root / "grade" / "tests" / "grading.yml").is_file() and (root / "grade" / "student").is_dir()
        full, score = 1, document["score"]
    assert result.stdout.startswith({"gradescope": "Gradescope: ", "prairielearn": "PrairieLearn: "}[platform])
    assert f"score {score:g}" in result.stdout
    if expected == "full":
        assert score == full
    else:
        assert 0 < score < full


#: (what is tried, the submission, words the error must hold).
REFUSALS = {
    "not-a-build": ("a-text-file", "ada-correct", ["is neither an autograder.zip nor a PrairieLearn build"]),
    "no-submission": ("a-text-file", "no-such-submission", ["does not exist", "name a folder"]),
    "folder-not-a-build": ("a-folder", "ada-correct", ["question/info.json"]),
}


@pytest.mark.parametrize("case_id", list(REFUSALS))
def test_try_refuses_what_it_cannot_run_with_a_clear_error(case_id, tmp_path):
    """Given something that is no build, or no submission, does `try` exit 2 saying what is wrong
    and what to name, without a traceback?"""
    built, submission, words = REFUSALS[case_id]
    (tmp_path / "a-text-file").write_text("not a zip")
    (tmp_path / "a-folder").mkdir()
    result = _try(str(tmp_path / built), str(EXAMPLES / submission))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


# id -> (was the sandbox account there before, is it there after): does the summary say this trial made it?
ACCOUNTS = {
    "made by this try": ((False, True), True),
    "there before": ((True, True), False),
    "not made (setup failed early)": ((False, False), False),
}


@pytest.mark.parametrize("case_id", list(ACCOUNTS), ids=list(ACCOUNTS))
def test_try_says_when_it_left_the_sandbox_account(case_id, tmp_path, monkeypatch):
    """Does try's summary say that it created the sandbox account, that it stays and how to remove
    it, exactly when the account was not there before and is now?"""
    import os
    import zipfile

    from autograder.platforms.common import trial
    from autograder.sandbox import isolation

    (before, after), said = ACCOUNTS[case_id]
    answers = iter((before, after))
    monkeypatch.setattr(trial, "_has_user", lambda name: next(answers))
    monkeypatch.setattr(os, "getuid", lambda: 0)
    built = tmp_path / "autograder.zip"
    with zipfile.ZipFile(built, "w") as archive:
        archive.writestr("run_autograder", "")
    results = tmp_path / "results.json"
    monkeypatch.setattr(
        trial,
        "_gradescope",
        lambda *args, **kwargs: trial.Trial(
            "Gradescope", tmp_path, results, tmp_path / "out.txt", 0, {"score": 1, "tests": []}
        ),
    )
    summary = trial.run(built, tmp_path).summary()
    assert ("userdel " + isolation.SANDBOX_USER in summary) == said, summary
    assert summary.startswith("Gradescope: score 1")


METADATA = {
    "given": '{"created_at": "2026-12-07T10:00:00.000000-06:00", "previous_submissions": []}',
    "not given": None,
}


@pytest.mark.parametrize("case_id", list(METADATA), ids=list(METADATA))
def test_try_gives_gradescopes_run_the_metadata_named(case_id, tmp_path, monkeypatch):
    """Does `try --metadata FILE` put that file where run_autograder reads the submission's time
    (ROOT/submission_metadata.json), and without it leave none (nothing is late)?"""
    import zipfile

    from autograder.platforms.common import trial

    monkeypatch.setattr(trial, "_setup", lambda *args: None)
    monkeypatch.setattr(trial, "_script", lambda *args: 0)
    built = tmp_path / "autograder.zip"
    with zipfile.ZipFile(built, "w") as archive:
        archive.writestr("run_autograder", "")
    text = METADATA[case_id]
    given = None
    if text is not None:
        given = tmp_path / "metadata.json"
        given.write_text(text, encoding="utf-8")
    done = trial.run(built, EXAMPLES / "ada-correct", root=tmp_path / "root", metadata=given)
    placed = done.root / "submission_metadata.json"
    assert (placed.read_text(encoding="utf-8") if placed.exists() else None) == text
